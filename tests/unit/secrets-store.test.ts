import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createSecretStore,
  EncryptedFileSecretStore,
  EnvSecretStore,
  MemorySecretStore,
  ReadOnlySecretError,
  SECRETS_FILE_NAME,
  type Encryptor,
} from '../../src-main/host/secrets';

const KEY = 'sk-test-0123456789abcdefghijklmnop';

/** A reversible test cipher (XOR with a fixed pad): ciphertext never contains the text. */
function fakeEncryptor(isProtected = true): Encryptor & { calls: number } {
  const pad = (data: Buffer) => Buffer.from(data.map((byte, index) => byte ^ (0x5a + (index % 7))));
  return {
    calls: 0,
    isProtected: () => isProtected,
    async encrypt(text) {
      this.calls++;
      return Buffer.concat([Buffer.from('v10'), pad(Buffer.from(text, 'utf8'))]);
    },
    async decrypt(data) {
      if (data.subarray(0, 3).toString() !== 'v10') throw new Error('not ours');
      return pad(data.subarray(3)).toString('utf8');
    },
  };
}

/** Every byte Deskhand wrote in a folder, as text, to look for the key. */
function everythingIn(dir: string): string {
  return readdirSync(dir)
    .map((name) => readFileSync(join(dir, name)).toString('latin1'))
    .join('\n');
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'deskhand-secrets-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('EnvSecretStore', () => {
  it('reads OPENAI_API_KEY for the host profile and is read-only', async () => {
    const store = new EnvSecretStore({ OPENAI_API_KEY: ` ${KEY} ` });
    expect(await store.get('host')).toBe(KEY);
    expect(await store.get('app')).toBeNull();
    expect(await store.status('host')).toEqual({ set: true, protected: true, source: 'environment' });
    await expect(store.set('host', 'x')).rejects.toBeInstanceOf(ReadOnlySecretError);
    await expect(store.delete('host')).rejects.toThrow(/OPENAI_API_KEY/);
  });

  it('rejects names that are not secret names', async () => {
    await expect(new EnvSecretStore({}).get('../x')).rejects.toThrow(/invalid secret name/);
  });
});

describe('EncryptedFileSecretStore', () => {
  it('stores only ciphertext, never the key, in a private file', async () => {
    const store = new EncryptedFileSecretStore(dir, fakeEncryptor());
    await store.set('host', KEY);
    expect(await store.get('host')).toBe(KEY);
    const file = join(dir, SECRETS_FILE_NAME);
    expect(everythingIn(dir)).not.toContain(KEY);
    expect(readFileSync(file, 'utf8')).not.toContain(Buffer.from(KEY).toString('base64'));
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o077).toBe(0);
    // A new store (next start) reads it back.
    expect(await new EncryptedFileSecretStore(dir, fakeEncryptor()).get('host')).toBe(KEY);
  });

  it('refuses an encryptor that passes the text through', async () => {
    const leaky: Encryptor = {
      isProtected: () => true,
      encrypt: async (text) => Buffer.from(`prefix:${text}`),
      decrypt: async (data) => data.toString().slice(7),
    };
    const store = new EncryptedFileSecretStore(dir, leaky);
    await expect(store.set('host', KEY)).rejects.toThrow(/not saved/);
    expect(existsSync(join(dir, SECRETS_FILE_NAME))).toBe(false);
  });

  it('reports a key written without OS protection as not protected', async () => {
    const store = new EncryptedFileSecretStore(dir, fakeEncryptor(false));
    await store.set('host', KEY);
    expect(await store.status('host')).toEqual({ set: true, protected: false, source: 'encrypted-file' });
    expect(await store.status('app')).toEqual({ set: false, protected: true, source: null });
  });

  it('deletes keys', async () => {
    const store = new EncryptedFileSecretStore(dir, fakeEncryptor());
    await store.set('host', KEY);
    await store.set('app', `${KEY}-app`);
    await store.delete('host');
    expect(await store.get('host')).toBeNull();
    expect(await store.get('app')).toBe(`${KEY}-app`);
  });

  it('does not take a key as saved, or as deleted, when writing the file failed', async () => {
    const store = new EncryptedFileSecretStore(dir, fakeEncryptor());
    await store.set('app', `${KEY}-app`);
    // The file cannot be replaced (a full disk, say): here its temporary file's name is taken by a folder.
    const blocker = join(dir, `${SECRETS_FILE_NAME}.${process.pid}.tmp`);
    mkdirSync(blocker);
    await expect(store.set('host', KEY)).rejects.toThrow();
    await expect(store.delete('app')).rejects.toThrow();
    // Settings said the save failed: the store must not use (and show as set) what is not on disk.
    expect(await store.get('host')).toBeNull();
    expect((await store.status('host')).set).toBe(false);
    expect(await store.get('app')).toBe(`${KEY}-app`);
    rmSync(blocker, { recursive: true });
    const reopened = new EncryptedFileSecretStore(dir, fakeEncryptor());
    expect(await reopened.get('host')).toBeNull();
    expect(await reopened.get('app')).toBe(`${KEY}-app`);
  });

  it('keeps a damaged file aside and starts empty', async () => {
    writeFileSync(join(dir, SECRETS_FILE_NAME), '{"version":1,"secrets":{"host":{"ciphertext":"!!"');
    const warnings: string[] = [];
    const store = new EncryptedFileSecretStore(dir, fakeEncryptor(), (message) => warnings.push(message));
    expect(await store.get('host')).toBeNull();
    expect(existsSync(join(dir, `${SECRETS_FILE_NAME}.bad`))).toBe(true);
    expect(warnings[0]).toMatch(/damaged/);
  });

  it('treats a key it cannot decrypt (another keychain) as not set, with a warning', async () => {
    await new EncryptedFileSecretStore(dir, fakeEncryptor()).set('host', KEY);
    const other: Encryptor = { ...fakeEncryptor(), decrypt: async () => Promise.reject(new Error('bad key')) };
    const warnings: string[] = [];
    expect(await new EncryptedFileSecretStore(dir, other, (message) => warnings.push(message)).get('host')).toBeNull();
    expect(warnings.join()).toMatch(/enter it again/);
    expect(warnings.join()).not.toContain(KEY);
  });

  it('re-encrypts when the encryptor asks (a rotated key)', async () => {
    const encryptor = fakeEncryptor();
    const store = new EncryptedFileSecretStore(dir, {
      ...encryptor,
      encrypt: encryptor.encrypt.bind(encryptor),
      decryptWithStatus: async (data) => ({ text: await encryptor.decrypt(data), reEncrypt: true }),
    });
    await store.set('host', KEY);
    const before = encryptor.calls;
    expect(await store.get('host')).toBe(KEY);
    expect(encryptor.calls).toBe(before + 1);
  });

  it('a key that decrypts but cannot be re-encrypted is still used, and the warning says what failed', async () => {
    const encryptor = fakeEncryptor();
    const warnings: string[] = [];
    const writer = new EncryptedFileSecretStore(dir, encryptor);
    await writer.set('host', KEY);
    const store = new EncryptedFileSecretStore(
      dir,
      {
        ...encryptor,
        encrypt: async () => {
          throw new Error('the keychain is locked');
        },
        decryptWithStatus: async (data) => ({ text: await encryptor.decrypt(data), reEncrypt: true }),
      },
      (message) => warnings.push(message),
    );
    expect(await store.get('host')).toBe(KEY);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/could not be encrypted again.*the keychain is locked/);
    expect(warnings[0]).not.toMatch(/cannot be decrypted/);
  });
});

describe('createSecretStore', () => {
  it('prefers a key saved in Settings over the environment, and falls back after delete', async () => {
    const store = createSecretStore({ dataDir: dir, env: { OPENAI_API_KEY: 'sk-from-env' }, encryptor: fakeEncryptor() });
    expect(store.storage).toBe('keychain');
    expect(await store.get('host')).toBe('sk-from-env');
    await store.set('host', KEY);
    expect(await store.get('host')).toBe(KEY);
    expect((await store.status('host')).source).toBe('encrypted-file');
    await store.delete('host');
    expect(await store.get('host')).toBe('sk-from-env');
    expect((await store.status('host')).source).toBe('environment');
  });

  it('without an encryptor keeps keys in memory only: nothing is written', async () => {
    const store = createSecretStore({ dataDir: dir, env: {} });
    expect(store.storage).toBe('memory');
    await store.set('host', KEY);
    expect(await store.get('host')).toBe(KEY);
    expect(await store.status('host')).toEqual({ set: true, protected: true, source: 'memory' });
    expect(readdirSync(dir)).toEqual([]);
    // The next run does not have it.
    expect(await createSecretStore({ dataDir: dir, env: {} }).get('host')).toBeNull();
  });

  it('says when saved keys are not protected', () => {
    expect(createSecretStore({ dataDir: dir, encryptor: fakeEncryptor(false) }).storage).toBe('unprotected-file');
  });

  it('memory store rejects bad names', async () => {
    await expect(new MemorySecretStore().set('Host Key', 'x')).rejects.toThrow(/invalid secret name/);
  });
});
