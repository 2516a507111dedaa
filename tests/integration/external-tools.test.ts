import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_EXTERNAL_RESULT_CHARS } from '../../src-main/commands/dispatcher';
import { DeskhandConfig } from '../../src-main/host/config';
import { createSecretStore } from '../../src-main/host/secrets';
import { SETTINGS_FILE_NAME, SettingsStore } from '../../src-main/host/settings-store';
import { startHttpFixture } from '../support/external-mcp-fixture';
import { replies, runRequest, type HostHarness } from '../support/host-harness';
import { harnessPerTest } from '../support/host-per-test';

const { app, hostTo, host } = replies;

const startHarness = harnessPerTest();

const server = (trusted: boolean) => ({
  name: 'notes',
  transport: 'stdio' as const,
  command: process.execPath,
  args: ['--import', 'tsx', resolve('tests/support/external-mcp-fixture.ts'), '--stdio'],
  trusted,
});

const scenario = () => ({
  name: 'external tool',
  steps: [
    hostTo('xterm', 'echo through the notes server'),
    { ...app({ Function: 'notes.echo', Args: { text: 'hello' }, Status: 'CONTINUE' }), expect: { contains: ['- notes.echo(text: string): Returns the text.'] } },
    app({ Function: '', Status: 'FINISH', Comment: 'echoed' }),
    host({ Status: 'FINISH', Comment: 'done' }),
  ],
});

/** The configuration the Settings dialog would hand on: the harness's model, these servers. */
const settingsWith = (h: HostHarness, mcpServers: ReturnType<typeof server>[]) =>
  DeskhandConfig.parse({ models: { host: { baseUrl: h.model.baseUrl, model: 'scripted', maxRetries: 0, timeoutMs: 10_000 } }, mcpServers });

describe('tools of the user\'s own MCP servers', () => {
  it('join the tool list, and an untrusted server\'s tool waits for approval before it runs', async () => {
    const asked: string[] = [];
    const harness = await startHarness(scenario(), {
      config: { mcpServers: [server(false)] },
      autoResponder: (interaction) => {
        if (interaction.kind !== 'confirm') return null;
        asked.push(interaction.reasons.join('; '));
        return { kind: 'decision', approved: true, note: null };
      },
    });
    const { outcome, steps, sessionId } = await runRequest(harness.host, 'echo hello');
    expect(outcome.status).toBe('finished');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/notes/);
    expect(steps.map((step) => `${step.agent}:${step.status}`)).toContain('AppAgent:CONFIRM');
    expect(steps.find((step) => step.approvedBy === 'user')?.result).toMatch(/hello/);
    expect(harness.host.audit.list(sessionId).find((row) => row.tool === 'notes.echo')).toMatchObject({ decision: 'approved', status: 'success', server: 'notes' });
  });

  it('run at once when the user marked the server trusted', async () => {
    const harness = await startHarness(scenario(), { config: { mcpServers: [server(true)] } });
    const { outcome, steps } = await runRequest(harness.host, 'echo hello');
    expect(outcome.status).toBe('finished');
    expect(steps[1]).toMatchObject({ status: 'CONTINUE', approvedBy: 'policy', result: expect.stringMatching(/hello/) });
  });

  it('follow the Settings: a server no longer trusted waits for approval from the next request on', async () => {
    const asked: string[] = [];
    let apply: ((config: DeskhandConfig) => void) | null = null;
    const harness = await startHarness(scenario(), {
      config: { mcpServers: [server(true)] },
      watchConfig: (listener) => (apply = listener),
      autoResponder: (interaction) => {
        if (interaction.kind !== 'confirm') return null;
        asked.push(interaction.reasons.join('; '));
        return { kind: 'decision', approved: false, note: null };
      },
    });
    expect(apply).not.toBeNull();
    apply!(settingsWith(harness, [server(false)]));
    await runRequest(harness.host, 'echo hello');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/not marked trusted/);
  });

  it("follow the Settings: the token variable of a server added there is kept out of what is stored at once, whatever it is called", async () => {
    // A name and a value that do not look secret: only the settings say it is a token.
    const value = 'plain-looking-value-4711';
    process.env.DESKHAND_TEST_NOTES_ACCESS = value;
    try {
      let apply: ((config: DeskhandConfig) => void) | null = null;
      const harness = await startHarness({ name: 'token named later', steps: [host({ Status: 'FINISH', Comment: 'done' })] }, { watchConfig: (listener) => (apply = listener) });
      const remote = { name: 'remote', transport: 'http' as const, url: 'http://127.0.0.1:9/mcp', tokenSecret: 'DESKHAND_TEST_NOTES_ACCESS', trusted: false };
      apply!(DeskhandConfig.parse({ ...settingsWith(harness, []), mcpServers: [remote] }));
      const run = await runRequest(harness.host, `the access value is ${value}`);
      expect(harness.host.store.getSession(run.sessionId)?.request).toBe('the access value is [redacted]');
    } finally {
      delete process.env.DESKHAND_TEST_NOTES_ACCESS;
    }
  });

  it("refuse in Settings a server whose token variable holds the model's key: nothing is saved, and it is never sent the key", async () => {
    // The harness's model key; a server that accepts it would be connected, were the settings taken.
    const modelKey = 'test-key';
    const fixture = await startHttpFixture(modelKey);
    try {
      // Wired as the entry points wire them; the settings can only be opened once the model server is up.
      let settings: SettingsStore | null = null;
      let apply: ((config: DeskhandConfig) => void) | null = null;
      const harness = await startHarness(
        { name: 'model key as a token', steps: [host({ Status: 'FINISH', Comment: 'done' })] },
        {
          watchConfig: (listener) => (apply = listener),
          settings: { get: () => settings!.handler().get(), set: (values, keys) => settings!.handler().set(values, keys) },
        },
      );
      const env = { OPENAI_BASE_URL: harness.model.baseUrl, DESKHAND_MODEL: 'scripted', OPENAI_API_KEY: modelKey };
      const secrets = createSecretStore({ dataDir: harness.dataDir, env, encryptor: null });
      settings = await SettingsStore.open({ dataDir: harness.dataDir, env, secrets, secretStorage: secrets.storage });
      const applied: DeskhandConfig[] = [];
      settings.onChange((config) => {
        applied.push(config);
        apply!(config);
      });
      const remote = { name: 'remote', transport: 'http', url: fixture.url, tokenSecret: 'OPENAI_API_KEY', trusted: true };
      const reply = await harness.host.endpoint.handle({ type: 'settings.set', id: 's', values: { mcpServers: [remote] } });
      expect(reply).toMatchObject({
        ok: false,
        error: { message: "mcpServers.0.tokenSecret: Token variable cannot be OPENAI_API_KEY: it holds the model's API key, which would be sent to this MCP server; give the server's token a variable of its own" },
      });
      expect(existsSync(join(harness.dataDir, SETTINGS_FILE_NAME))).toBe(false);
      expect(settings.config().mcpServers).toEqual([]);
      expect(applied).toEqual([]);
      expect((await runRequest(harness.host, 'echo hello')).outcome.status).toBe('finished');
      expect(fixture.received()).toBe(0);
    } finally {
      await fixture.close();
    }
  });

  it("are not fetched with the model's key held in a token variable of another name: the server is never sent it", async () => {
    // The harness's model key, copied into a variable of the server's own.
    const fixture = await startHttpFixture('test-key');
    process.env.DESKHAND_TEST_KEY_COPY = 'test-key';
    try {
      const remote = { name: 'remote', transport: 'http' as const, url: fixture.url, tokenSecret: 'DESKHAND_TEST_KEY_COPY', trusted: true };
      const harness = await startHarness(
        { name: 'model key copied', steps: [hostTo('xterm', 'look'), app({ Function: '', Status: 'FINISH', Comment: 'looked' }), host({ Status: 'FINISH', Comment: 'done' })] },
        { config: { mcpServers: [remote] } },
      );
      expect((await runRequest(harness.host, 'look around')).outcome.status).toBe('finished');
      expect(fixture.received()).toBe(0);
    } finally {
      delete process.env.DESKHAND_TEST_KEY_COPY;
      await fixture.close();
    }
  });

  it('follow the Settings: a server removed there offers no tools any more', async () => {
    let apply: ((config: DeskhandConfig) => void) | null = null;
    const steps = scenario().steps.map((step) => ('expect' in step ? { ...step, expect: { notContains: ['notes.echo('] } } : step));
    const harness = await startHarness({ name: 'removed server', steps }, { config: { mcpServers: [server(true)] }, watchConfig: (listener) => (apply = listener) });
    apply!(settingsWith(harness, []));
    const run = await runRequest(harness.host, 'echo hello');
    expect(run.steps[1]?.error ?? '').toMatch(/unknown tool 'notes.echo'/);
  });

  it('keep a huge result to a bounded size, saying how much was cut', async () => {
    const harness = await startHarness(
      {
        name: 'huge result',
        steps: [
          hostTo('xterm', 'read a lot through the notes server'),
          app({ Function: 'notes.big', Args: { chars: 5_000_000 }, Status: 'CONTINUE' }),
          app({ Function: '', Status: 'FINISH', Comment: 'read' }),
          host({ Status: 'FINISH', Comment: 'done' }),
        ],
      },
      { config: { mcpServers: [server(true)] } },
    );
    const { steps } = await runRequest(harness.host, 'read a lot');
    const result = steps[1]?.result ?? '';
    expect(steps[1]?.status).toBe('CONTINUE');
    expect(result.length).toBeLessThanOrEqual(MAX_EXTERNAL_RESULT_CHARS + 200);
    expect(result).toMatch(/4[0-9,]+ more characters of the result were cut/);
  });

  it('cut a huge result before an emoji, not inside it: the latest step shows its end to the model', async () => {
    const harness = await startHarness(
      {
        name: 'huge result ending across an emoji',
        steps: [
          hostTo('xterm', 'read a lot through the notes server'),
          app({ Function: 'notes.big', Args: { chars: MAX_EXTERNAL_RESULT_CHARS - 1, after: '🔥 and more' }, Status: 'CONTINUE' }),
          app({ Function: '', Status: 'FINISH', Comment: 'read' }),
          host({ Status: 'FINISH', Comment: 'done' }),
        ],
      },
      { config: { mcpServers: [server(true)] } },
    );
    const { steps } = await runRequest(harness.host, 'read a lot');
    const result = steps[1]?.result ?? '';
    expect(result).toMatch(/^x+\n… \(11 more characters of the result were cut\)$/);
  });

  it('say what a result without text holds, instead of an empty answer', async () => {
    const harness = await startHarness(
      {
        name: 'picture result',
        steps: [
          hostTo('xterm', 'draw the chart through the notes server'),
          app({ Function: 'notes.picture', Status: 'CONTINUE' }),
          app({ Function: '', Status: 'FINISH', Comment: 'drawn' }),
          host({ Status: 'FINISH', Comment: 'done' }),
        ],
      },
      { config: { mcpServers: [server(true)] } },
    );
    const { steps } = await runRequest(harness.host, 'draw the chart');
    expect(steps[1]?.result).toBe('[an image (image/png), not passed on to the agent]\n[a link to file:///tmp/chart.png]');
  });

  it('say once which tool failed when its server dropped the call', async () => {
    const harness = await startHarness(
      {
        name: 'server crashed during a call',
        steps: [
          hostTo('xterm', 'crash the notes server'),
          app({ Function: 'notes.crash', Status: 'CONTINUE' }),
          app({ Function: '', Status: 'FINISH', Comment: 'crashed' }),
          host({ Status: 'FINISH', Comment: 'done' }),
        ],
      },
      { config: { mcpServers: [server(true)] } },
    );
    const { steps, sessionId } = await runRequest(harness.host, 'crash it');
    const row = harness.host.audit.list(sessionId).find((entry) => entry.tool === 'notes.crash');
    expect(row?.error).toMatch(/^notes\.crash failed: MCP error -32000: Connection closed$/);
    expect(JSON.stringify(steps)).not.toMatch(/notes\.crash failed: notes\.crash failed/);
  });
});
