// launch_app reads each new window's owner once. A read that failed (the X server busy, a reply cut
// short) was kept as failed, and the window, maybe the program's own, was left out of the launch for
// good; the next look now reads it again.
import { beforeEach, describe, expect, it, vi } from 'vitest';

const owner = vi.hoisted(() => ({ calls: 0, failFirst: 1 }));
vi.mock('../../src-main/device/windows', () => ({
  windowOwner: async () => {
    owner.calls += 1;
    if (owner.calls <= owner.failFirst) throw new Error('X server reply cut short');
    return { netWmPid: 4242, clientMachine: '', clientPid: 4242, wmClass: ['mousepad', 'Mousepad'] };
  },
  windowIds: async () => ({ ids: [], active: null }),
  getWindow: async () => null,
}));
vi.mock('../../src-main/device/proc-tree', () => ({
  inProcessTree: async (pid: number, root: number) => pid === root,
  readProcStat: async () => ({ comm: 'mousepad' }),
}));

const { ownerFactsReader } = await import('../../src-main/device/apps');

describe("launch_app's read of a new window's owner", () => {
  beforeEach(() => {
    owner.calls = 0;
    owner.failFirst = 1;
  });

  it('is tried again at the next look after it failed, and the window then counts as the launched program', async () => {
    const factsOf = ownerFactsReader(4242);
    await expect(factsOf('0x3a00007')).rejects.toThrow('X server reply cut short');
    const facts = await factsOf('0x3a00007');
    expect(facts).toMatchObject({ pids: [4242], inLaunch: true, wmClass: ['mousepad', 'Mousepad'], commands: ['mousepad'] });
    expect(owner.calls).toBe(2);
  });

  it('is made once for a window whose read succeeded, however many looks follow', async () => {
    owner.failFirst = 0;
    const factsOf = ownerFactsReader(4242);
    await factsOf('0x3a00007');
    await factsOf('0x3a00007');
    await factsOf('0x3a00007');
    expect(owner.calls).toBe(1);
  });
});
