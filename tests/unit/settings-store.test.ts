import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SettingsView } from '../../src-main/protocol';
import { configFromEnv } from '../../src-main/host/config';
import { createHost } from '../../src-main/host/create-host';
import { createSecretStore, type Encryptor } from '../../src-main/host/secrets';
import { deepMerge, overridesOf, SETTINGS_FILE_NAME, settingsSchema, SettingsStore } from '../../src-main/host/settings-store';
import { settingLabel } from '../../src-main/host/setting-labels';

const KEY = 'sk-live-abcdefghijklmnopqrstuvwxyz012345';

const encryptor: Encryptor = {
  isProtected: () => true,
  encrypt: async (text) => Buffer.from(Buffer.from(text, 'utf8').map((byte) => byte ^ 0xa5)),
  decrypt: async (data) => Buffer.from(data.map((byte) => byte ^ 0xa5)).toString('utf8'),
};

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'deskhand-settings-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function open(env: NodeJS.ProcessEnv = {}, options: { encryptor?: Encryptor | null } = { encryptor }) {
  const secrets = createSecretStore({ dataDir: dir, env, encryptor: options.encryptor });
  const warnings: string[] = [];
  const store = new SettingsStore({ dataDir: dir, env, secrets, secretStorage: secrets.storage, onWarning: (m) => warnings.push(m) });
  return { store, secrets, warnings };
}

function filesText(): string {
  return readdirSync(dir)
    .map((name) => readFileSync(join(dir, name)).toString('latin1'))
    .join('\n');
}

const hostProfile = { baseUrl: 'http://127.0.0.1:11434/v1', model: 'llava' };

describe('SettingsStore', () => {
  it('starts from the environment and the schema defaults', () => {
    const { store } = open({ OPENAI_BASE_URL: 'http://127.0.0.1:1234/v1', DESKHAND_MODEL: 'qwen' });
    expect(store.config().models.host).toMatchObject({ baseUrl: 'http://127.0.0.1:1234/v1', model: 'qwen' });
    expect(store.config().limits.maxStepsPerRound).toBe(30);
    expect(existsSync(join(dir, SETTINGS_FILE_NAME))).toBe(false);
  });

  it('saves only what differs from the environment, and reads it back over the environment', async () => {
    const env = { OPENAI_BASE_URL: 'http://127.0.0.1:1234/v1' };
    const { store } = open(env);
    const result = await store.applySettings({ limits: { maxStepsPerRound: 50 }, agent: { visual: true } });
    expect(result.ok).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, SETTINGS_FILE_NAME), 'utf8'))).toEqual({ limits: { maxStepsPerRound: 50 } });
    // Next start: the saved value and a changed environment both apply.
    const next = open({ ...env, DESKHAND_MODEL: 'other' }).store;
    expect(next.config().limits.maxStepsPerRound).toBe(50);
    expect(next.config().models.host?.model).toBe('other');
  });

  it('stores a changed model profile whole, so it survives the environment going away', async () => {
    const { store } = open({ OPENAI_BASE_URL: 'http://127.0.0.1:1234/v1' });
    await store.applySettings({ models: { host: { ...store.config().models.host, model: 'llava' } } });
    const later = open({}).store;
    expect(later.loadProblem).toBeNull();
    expect(later.config().models.host).toMatchObject({ baseUrl: 'http://127.0.0.1:1234/v1', model: 'llava' });
  });

  it('refuses an invalid value with the field and its schema message, and saves nothing', async () => {
    const { store } = open();
    const result = await store.applySettings({ models: { host: { ...hostProfile, baseUrl: 'not a url' } }, limits: { maxStepsPerRound: 0 } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual(
      expect.arrayContaining([
        { path: 'models.host.baseUrl', message: 'the model endpoint must be an http(s) URL, e.g. http://127.0.0.1:11434/v1' },
        expect.objectContaining({ path: 'limits.maxStepsPerRound' }),
      ]),
    );
    expect(existsSync(join(dir, SETTINGS_FILE_NAME))).toBe(false);
    expect(store.config().models.host).toBeNull();
  });

  it('refuses a confirmation pattern that is no regular expression when it is saved, and keeps the old rules', async () => {
    const { store } = open();
    const before = store.config().safety.sensitiveCommandPatterns;
    const result = await store.applySettings({ safety: { sensitiveCommandPatterns: [...before, 'rm (-rf'] } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual([
      { path: `safety.sensitiveCommandPatterns.${before.length}`, message: expect.stringMatching(/^not a valid regular expression \(.*Unterminated group/) },
    ]);
    expect(store.config().safety.sensitiveCommandPatterns).toEqual(before);
    expect(existsSync(join(dir, SETTINGS_FILE_NAME))).toBe(false);
    // A pattern only the older dialect reads ("\-") is still a pattern.
    expect((await store.applySettings({ safety: { denyCommandPatterns: [String.raw`\bshred\s+\-u`] } })).ok).toBe(true);
  });

  it('sets aside a saved file with a broken pattern instead of failing to start', () => {
    writeFileSync(join(dir, SETTINGS_FILE_NAME), JSON.stringify({ safety: { denyCommandPatterns: ['(['] } }));
    const { store, warnings } = open();
    expect(store.config().safety.denyCommandPatterns.length).toBeGreaterThan(0);
    expect(warnings[0]).toMatch(/safety\.denyCommandPatterns\.0: not a valid regular expression/);
    expect(existsSync(join(dir, `${SETTINGS_FILE_NAME}.bad`))).toBe(true);
  });

  it('refuses two MCP servers with the same name', async () => {
    const { store } = open();
    const server = { name: 'files', transport: 'stdio', command: 'files-mcp' };
    const result = await store.applySettings({ mcpServers: [server, { ...server, command: 'other' }] });
    expect(result).toEqual({ ok: false, errors: [{ path: 'mcpServers.1.name', message: "another server is already named 'files'" }] });
  });

  it("refuses an MCP server URL that is not http(s), or that carries a user name or password", async () => {
    const { store } = open();
    const server = (url: string) => ({ mcpServers: [{ name: 'remote', transport: 'http', url }] });
    for (const url of ['https://me:sekrit-token@mcp.example.com/mcp', 'file:///etc/passwd', 'javascript:alert(1)']) {
      const result = await store.applySettings(server(url));
      expect(result.ok).toBe(false);
      expect(!result.ok && result.errors.map((error) => error.path)).toEqual(['mcpServers.0.url']);
    }
    expect(existsSync(join(dir, SETTINGS_FILE_NAME))).toBe(false);
    expect((await store.applySettings(server('https://mcp.example.com/mcp?v=2'))).ok).toBe(true);
    expect((await store.applySettings(server('http://127.0.0.1:8931/mcp'))).ok).toBe(true);
  });

  it("refuses a token pasted where the name of its variable goes, without repeating it", async () => {
    const { store } = open();
    const token = 'ghp_16C7e42F292c6912E7710c838347Ae178B4a';
    const server = (tokenSecret: string) => ({ mcpServers: [{ name: 'gh', transport: 'http', url: 'https://mcp.example.com/mcp', tokenSecret }] });
    for (const pasted of [token, `Bearer ${token}`, 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz']) {
      const result = await store.applySettings(server(pasted));
      expect(result.ok).toBe(false);
      expect(!result.ok && result.errors.map((error) => error.path)).toEqual(['mcpServers.0.tokenSecret']);
      expect(JSON.stringify(result)).not.toContain(pasted);
    }
    expect(existsSync(join(dir, SETTINGS_FILE_NAME))).toBe(false);
    expect((await store.applySettings(server('GITHUB_MCP_TOKEN'))).ok).toBe(true);
    // A field left blank in the form: no token.
    expect((await store.applySettings(server(''))).ok).toBe(true);
  });

  it("refuses a token variable that holds the model's API key, and saves nothing", async () => {
    const { store } = open({ OPENAI_API_KEY: KEY });
    const changes: unknown[] = [];
    store.onChange((config) => changes.push(config));
    const server = { name: 'gh', transport: 'http', url: 'https://mcp.example.com/mcp', tokenSecret: 'OPENAI_API_KEY' };
    const result = await store.applySettings({ limits: { maxStepsPerRound: 50 }, mcpServers: [server] });
    expect(result).toEqual({
      ok: false,
      errors: [
        {
          path: 'mcpServers.0.tokenSecret',
          message: "Token variable cannot be OPENAI_API_KEY: it holds the model's API key, which would be sent to this MCP server; give the server's token a variable of its own",
        },
      ],
    });
    expect(JSON.stringify(result)).not.toContain(KEY);
    expect(existsSync(join(dir, SETTINGS_FILE_NAME))).toBe(false);
    expect(store.config().mcpServers).toEqual([]);
    expect(store.config().limits.maxStepsPerRound).toBe(30);
    expect(changes).toEqual([]);
  });

  it("drops at start-up a saved token variable that holds the model's API key, saying which field", () => {
    const server = { name: 'gh', transport: 'http', url: 'https://mcp.example.com/mcp', tokenSecret: 'OPENAI_API_KEY' };
    writeFileSync(join(dir, SETTINGS_FILE_NAME), JSON.stringify({ mcpServers: [server] }));
    const { store, warnings } = open({ OPENAI_API_KEY: KEY });
    expect(store.config().mcpServers).toEqual([{ name: 'gh', transport: 'http', url: 'https://mcp.example.com/mcp', trusted: false }]);
    expect(warnings[0]).toMatch(/mcpServers\.0\.tokenSecret: Token variable cannot be OPENAI_API_KEY: it holds the model's API key/);
  });

  it('never writes an API key into the settings file, even when sent among the values', async () => {
    const { store } = open();
    const result = await store.applySettings({ models: { host: { ...hostProfile, apiKey: KEY } }, apiKey: KEY }, { host: KEY });
    expect(result.ok).toBe(true);
    expect(readFileSync(join(dir, SETTINGS_FILE_NAME), 'utf8')).not.toContain(KEY);
    // Nowhere on disk in the clear: the secrets file holds ciphertext.
    expect(filesText()).not.toContain(KEY);
  });

  it('treats API keys as write-only: the view says set, never the key', async () => {
    const { store, secrets } = open();
    const result = await store.applySettings({ models: { host: hostProfile } }, { host: KEY });
    expect(result.ok && result.view.secrets.host).toEqual({ set: true, protected: true });
    expect(await secrets.get('host')).toBe(KEY);
    const view = await store.settingsView();
    expect(JSON.stringify(view)).not.toContain(KEY);
    expect(view.secrets).toEqual({ host: { set: true, protected: true }, app: { set: false, protected: true } });
    // An empty string removes the saved key.
    await store.applySettings({}, { host: '' });
    expect((await store.settingsView()).secrets.host).toEqual({ set: false, protected: true });
  });

  it('refuses keys for unknown profiles or with spaces', async () => {
    const { store, secrets } = open();
    const result = await store.applySettings({}, { nosuch: KEY, host: `${KEY}\n` });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((error) => error.path).sort()).toEqual(['secrets.host', 'secrets.nosuch']);
    expect(await secrets.get('host')).toBeNull();
    expect(JSON.stringify(result.errors)).not.toContain(KEY);
  });

  it('produces a protocol SettingsView with the JSON Schema of the config', async () => {
    const { store } = open({}, { encryptor: null });
    const view = SettingsView.parse(await store.settingsView());
    expect(view.schema).toMatchObject({ type: 'object', properties: { models: expect.any(Object), limits: expect.any(Object) } });
    expect(view.values).toMatchObject({ limits: { maxStepsPerRound: 30 } });
    // Browser mode: the settings say keys live in memory for this run only.
    expect(String(view.schema.description)).toMatch(/memory for this run only/);
    expect(JSON.stringify(view.uischema)).toMatch(/memory for this run only/);
  });

  it('says when saved keys are not protected (Linux basic_text)', async () => {
    const { store } = open({}, { encryptor: { ...encryptor, isProtected: () => false } });
    await store.applySettings({}, { host: KEY });
    const view = await store.settingsView();
    expect(view.secrets.host).toEqual({ set: true, protected: false });
    expect(String(view.schema.description)).toMatch(/NOT protected/);
  });

  it('drops only the values it cannot use, keeps the rest (the approval mode too), and says why', async () => {
    const saved = { safety: { confirmation: 'always' }, limits: { maxStepsPerRound: 0, maxStepsPerSession: 500 }, agent: { visual: 'maybe' } };
    writeFileSync(join(dir, SETTINGS_FILE_NAME), JSON.stringify(saved));
    const { store, warnings } = open();
    expect(store.config().safety.confirmation).toBe('always');
    expect(store.config().limits).toMatchObject({ maxStepsPerRound: 30, maxStepsPerSession: 500 });
    expect(warnings).toHaveLength(1);
    expect(store.loadProblem).toMatch(/had values Deskhand cannot use \(.*\); those were dropped and the other settings kept/);
    expect(store.loadProblem).toMatch(/limits\.maxStepsPerRound: Too small/);
    expect(store.loadProblem).toMatch(/agent\.visual: Invalid input/);
    // The file as it was is kept; the one in use holds what was kept.
    expect(JSON.parse(readFileSync(join(dir, `${SETTINGS_FILE_NAME}.bad`), 'utf8'))).toEqual(saved);
    expect(JSON.parse(readFileSync(join(dir, SETTINGS_FILE_NAME), 'utf8'))).toEqual({ safety: { confirmation: 'always' }, limits: { maxStepsPerSession: 500 } });
    // Settings names each value as the dialog labels it, not by its place in the file.
    const note = String((await store.settingsView()).schema.description);
    expect(note).toMatch(/^Saved settings: some saved values could not be used and were dropped \(/);
    expect(note).toContain('Limits › Max steps per round: Too small');
    expect(note).toContain('Agent › Visual: Invalid input');
    expect(note).not.toMatch(/maxStepsPerRound|agent\.visual/);
    // Opened again, nothing is wrong any more.
    expect(open().store.loadProblem).toBeNull();
  });

  it('keeps a file that is no JSON object aside as .bad, uses defaults and says why', () => {
    writeFileSync(join(dir, SETTINGS_FILE_NAME), '{ not json');
    const { store, warnings } = open();
    expect(store.loadProblem).toMatch(/not valid JSON/);
    expect(warnings).toHaveLength(1);
    expect(store.config().safety.confirmation).toBe('sensitive');
    expect(readFileSync(join(dir, `${SETTINGS_FILE_NAME}.bad`), 'utf8')).toBe('{ not json');
    expect(existsSync(join(dir, SETTINGS_FILE_NAME))).toBe(false);

    writeFileSync(join(dir, SETTINGS_FILE_NAME), '[1, 2]');
    expect(open().store.loadProblem).toMatch(/kept as .*\.bad and defaults are used/);
  });

  it('applies changes sent together one after the other: a save waiting on the keychain does not undo the next one', async () => {
    // The desktop app's keychain encrypts asynchronously (safeStorage.encryptStringAsync): a save with a key waits on it.
    let encrypted = (): void => undefined;
    const slow: Encryptor = {
      ...encryptor,
      encrypt: (text) => new Promise((done) => (encrypted = () => void encryptor.encrypt(text).then(done))),
    };
    const { store } = open({}, { encryptor: slow });
    const withKey = store.applySettings({ limits: { maxStepsPerRound: 50 } }, { host: KEY });
    // Meanwhile, from the form: every action is to wait for approval.
    const stricter = store.applySettings({ safety: { confirmation: 'always' } });
    await new Promise((done) => setTimeout(done, 20));
    encrypted();
    expect((await withKey).ok).toBe(true);
    expect((await stricter).ok).toBe(true);
    expect(store.config().safety.confirmation).toBe('always');
    expect(store.config().limits.maxStepsPerRound).toBe(50);
    expect(JSON.parse(readFileSync(join(dir, SETTINGS_FILE_NAME), 'utf8'))).toEqual({ limits: { maxStepsPerRound: 50 }, safety: { confirmation: 'always' } });
    expect(store.apiKey('host')).toBe(KEY);
  });

  it('tells listeners about a changed configuration', async () => {
    const { store } = open();
    const seen: number[] = [];
    store.onChange((config) => seen.push(config.limits.maxStepsPerRound));
    await store.applySettings({ limits: { maxStepsPerRound: 12 } });
    await store.applySettings({ limits: { maxStepsPerRound: 12 } });
    expect(seen).toEqual([12]);
  });
});

describe('the data folder', () => {
  const modeOf = (path: string) => statSync(path).mode & 0o777;

  it.skipIf(process.platform === 'win32')('is made private when Deskhand creates it: it holds the sessions and screenshots', async () => {
    const dataDir = join(dir, 'made-by-the-host', 'Deskhand');
    const host = createHost({ dataDir, config: configFromEnv({}), env: {} });
    await host.close();
    expect(modeOf(dataDir)).toBe(0o700);
  });

  it.skipIf(process.platform === 'win32')('is made private when saving the settings creates it', async () => {
    const dataDir = join(dir, 'made-by-settings', 'Deskhand');
    const secrets = createSecretStore({ dataDir, env: {}, encryptor: null });
    const store = new SettingsStore({ dataDir, env: {}, secrets, secretStorage: secrets.storage });
    expect((await store.applySettings({ limits: { maxStepsPerRound: 12 } })).ok).toBe(true);
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(join(dataDir, SETTINGS_FILE_NAME))).toBe(0o600);
  });
});

describe('host hooks', () => {
  it('answers API keys synchronously, saved over environment, refreshed after changes', async () => {
    const secrets = createSecretStore({ dataDir: dir, env: { OPENAI_API_KEY: 'sk-env-key' }, encryptor });
    const store = await SettingsStore.open({ dataDir: dir, env: { OPENAI_API_KEY: 'sk-env-key' }, secrets, secretStorage: secrets.storage });
    expect(store.apiKey('host')).toBe('sk-env-key');
    expect(store.apiKey('app')).toBeNull();
    await store.applySettings({}, { host: KEY });
    expect(store.apiKey('host')).toBe(KEY);
    await store.applySettings({}, { host: '' });
    expect(store.apiKey('host')).toBe('sk-env-key');
  });

  it('is the session service settings handler: invalid values become a bad_message error', async () => {
    const { store } = open();
    const handler = store.handler();
    expect((await handler.get()).values).toMatchObject({ limits: { maxStepsPerRound: 30 } });
    expect((await handler.set({ limits: { maxStepsPerRound: 40 } }, undefined)).values).toMatchObject({ limits: { maxStepsPerRound: 40 } });
    await expect(handler.set({ limits: { maxStepsPerRound: -1 } }, { host: KEY })).rejects.toMatchObject({
      code: 'bad_message',
      message: expect.stringMatching(/^limits\.maxStepsPerRound: /),
    });
    expect(store.apiKey('host')).toBeNull();
  });
});

describe('configuration from the environment', () => {
  it('names the variable whose value is wrong', () => {
    expect(() => configFromEnv({ OPENAI_API_KEY: 'k', DESKHAND_CONFIRM: 'sometimes' })).toThrow(/^DESKHAND_CONFIRM is not valid: /);
    expect(() => configFromEnv({ OPENAI_BASE_URL: 'localhost:11434/v1' })).toThrow(/^OPENAI_BASE_URL is not valid: the model endpoint must be an http\(s\) URL/);
    expect(() => configFromEnv({ OPENAI_BASE_URL: 'ftp://models.example/v1' })).toThrow(/^OPENAI_BASE_URL is not valid/);
    expect(() => configFromEnv({ OPENAI_BASE_URL: 'https://me:pw@proxy.example/v1' })).toThrow(
      'OPENAI_BASE_URL is not valid: the model endpoint URL cannot carry a user name or password: give the key as OPENAI_API_KEY or in Settings',
    );
    expect(() => configFromEnv({ OPENAI_API_KEY: 'k', DESKHAND_JSON_MODE: 'maybe' })).toThrow("DESKHAND_JSON_MODE must be 1 or 0 (true or false), got 'maybe'");
  });

  it('reads yes/no flags and a confirmation mode in any case', () => {
    const config = configFromEnv({ OPENAI_API_KEY: 'k', DESKHAND_JSON_MODE: 'true', DESKHAND_CONFIRM: 'Always' });
    expect(config.models.host?.jsonMode).toBe(true);
    expect(config.safety.confirmation).toBe('always');
    expect(configFromEnv({ OPENAI_API_KEY: 'k', DESKHAND_JSON_MODE: 'off' }).models.host?.jsonMode).toBe(false);
  });
});

describe('merging helpers', () => {
  it('merges objects and replaces arrays and nulls', () => {
    expect(deepMerge({ a: { b: 1, c: [1, 2] }, d: 1 }, { a: { c: [3] }, d: null })).toEqual({ a: { b: 1, c: [3] }, d: null });
  });

  it('keeps overrides two levels deep, whole values below', () => {
    expect(overridesOf({ models: { host: { model: 'a', baseUrl: 'x' } }, limits: { m: 1, n: 2 } }, { models: { host: { model: 'b', baseUrl: 'x' } }, limits: { m: 1, n: 3 } })).toEqual({
      models: { host: { model: 'b', baseUrl: 'x' } },
      limits: { n: 3 },
    });
  });
});

describe('settingLabel', () => {
  const schema = settingsSchema();
  it('names a setting by the titles Settings shows, through lists and their variants', () => {
    expect(settingLabel(schema, ['safety', 'confirmation'])).toBe('Safety › Ask for approval');
    expect(settingLabel(schema, ['mcpServers', 1, 'url'])).toBe('MCP servers › 2 › URL');
    expect(settingLabel(schema, ['mcpServers', 0, 'command'])).toBe('MCP servers › 1 › Command');
  });

  it('keeps a part the schema does not know as written', () => {
    expect(settingLabel(schema, ['limits', 'maxStepz'])).toBe('Limits › maxStepz');
    expect(settingLabel(schema, ['nothing', 'here'])).toBe('nothing › here');
  });
});
