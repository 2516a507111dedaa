import { describe, expect, it } from 'vitest';
import { parseDeviceArgs } from '../../src-main/device/config';
import { DeskhandConfig } from '../../src-main/host/config';
import { hostDeviceLaunch } from '../../src-main/host/create-host';

describe("browser mode's device client", () => {
  it("is told the page mark, so that it keeps off the browser window showing Deskhand's page", () => {
    const config = DeskhandConfig.parse({ device: { screenshotFormat: 'png', screenshotMaxLongEdge: 1024 } });
    const spec = hostDeviceLaunch(config, { DISPLAY: ':5', OPENAI_API_KEY: 'sk-secret' }, { protectTitle: '5e1f0a9c' });
    const flags = spec.args.filter((arg) => arg.startsWith('--'));
    const device = parseDeviceArgs(flags.filter((arg) => arg !== '--import'));
    expect(device).toMatchObject({ protectTitle: '5e1f0a9c', format: 'png', maxEdge: 1024 });
    expect(device.protectPid).toBeUndefined();
    // As the host starts it otherwise: the display, and no secrets.
    expect(spec.env.DISPLAY).toBe(':5');
    expect(spec.env.OPENAI_API_KEY).toBeUndefined();
  });
});
