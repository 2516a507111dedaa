import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { writeJsonAtomic } from '../common/json-file';

/**
 * API keys and tokens: never in the database, logs, exports or settings file.
 *
 * Layers, first hit wins on read:
 *   1. a writable store the user fills from Settings: encrypted on disk (desktop app, via an
 *      `Encryptor` backed by the OS keychain) or kept in memory for this run (no encryptor: browser mode);
 *   2. the environment (`OPENAI_API_KEY` for the `host` profile), read-only.
 * Settings in the UI override the environment, hence the order.
 */

/** Secret names: model profile names (`host`, `app`) and MCP token names. */
export const SecretName = z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'a short lowercase name');

/** Where a secret comes from, for the settings page ("from OPENAI_API_KEY", "kept for this run only"). */
export type SecretSource = 'environment' | 'encrypted-file' | 'memory';

export interface SecretStatus {
  set: boolean;
  /**
   * The value is out of reach of other users and programs as far as Deskhand can make it: encrypted by
   * the OS keychain, or never written by Deskhand at all (environment, memory). False when it was written
   * with a key the OS does not guard (Linux `basic_text`).
   */
  protected: boolean;
  source: SecretSource | null;
}

export interface SecretStore {
  get(name: string): Promise<string | null>;
  /** Throws `ReadOnlySecretError` on a read-only store. */
  set(name: string, value: string): Promise<void>;
  delete(name: string): Promise<void>;
  status(name: string): Promise<SecretStatus>;
  /** False for a store that only reads (the environment). */
  readonly writable: boolean;
}

/** Turns text into ciphertext and back; the Electron shell provides one backed by `safeStorage`. */
export interface Encryptor {
  encrypt(text: string): Promise<Buffer>;
  decrypt(data: Buffer): Promise<string>;
  /** False when the OS gives no real protection (Linux `basic_text`): the settings then say so. */
  isProtected(): boolean;
  /** When present: decrypts and says whether the data should be encrypted again (a rotated key). */
  decryptWithStatus?(data: Buffer): Promise<{ text: string; reEncrypt: boolean }>;
}

export class ReadOnlySecretError extends Error {
  constructor(name: string, where: string) {
    super(`the ${name} key comes from ${where} and cannot be changed here`);
    this.name = 'ReadOnlySecretError';
  }
}

const NOT_SET: SecretStatus = { set: false, protected: true, source: null };

function checkName(name: string): string {
  const parsed = SecretName.safeParse(name);
  if (!parsed.success) throw new Error(`invalid secret name '${name.slice(0, 40)}': ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

/** Secret name -> environment variable. The `host` profile's key is `OPENAI_API_KEY`. */
export const DEFAULT_SECRET_ENV: Readonly<Record<string, string>> = { host: 'OPENAI_API_KEY' };

/** The environment variables a model's API key is read from: no MCP server may be sent one as its token. */
export const MODEL_KEY_VARIABLES: ReadonlySet<string> = new Set(Object.values(DEFAULT_SECRET_ENV));

/** Read-only secrets from environment variables. */
export class EnvSecretStore implements SecretStore {
  readonly writable = false;

  constructor(
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly names: Readonly<Record<string, string>> = DEFAULT_SECRET_ENV,
  ) {}

  /** The variable a secret is read from, or null. */
  variableOf(name: string): string | null {
    return Object.hasOwn(this.names, name) ? (this.names[name] ?? null) : null;
  }

  async get(name: string): Promise<string | null> {
    const variable = this.variableOf(checkName(name));
    return (variable && this.env[variable]?.trim()) || null;
  }

  async set(name: string, _value: string): Promise<void> {
    throw new ReadOnlySecretError(name, this.variableOf(name) ?? 'the environment');
  }

  async delete(name: string): Promise<void> {
    throw new ReadOnlySecretError(name, this.variableOf(name) ?? 'the environment');
  }

  async status(name: string): Promise<SecretStatus> {
    return (await this.get(name)) ? { set: true, protected: true, source: 'environment' } : NOT_SET;
  }
}

/** Secrets for this run only (browser mode, or no usable keychain): nothing touches the disk. */
export class MemorySecretStore implements SecretStore {
  readonly writable = true;
  private readonly values = new Map<string, string>();

  async get(name: string): Promise<string | null> {
    return this.values.get(checkName(name)) ?? null;
  }

  async set(name: string, value: string): Promise<void> {
    this.values.set(checkName(name), value);
  }

  async delete(name: string): Promise<void> {
    this.values.delete(checkName(name));
  }

  async status(name: string): Promise<SecretStatus> {
    return this.values.has(checkName(name)) ? { set: true, protected: true, source: 'memory' } : NOT_SET;
  }
}

const SecretsFile = z.object({
  version: z.literal(1),
  secrets: z.record(
    z.string(),
    z.object({
      /** base64 of the encryptor's output: never the text itself. */
      ciphertext: z.base64(),
      /** Whether the encryptor protected it when it was written. */
      protected: z.boolean(),
    }),
  ),
});
type SecretsFile = z.infer<typeof SecretsFile>;

export const SECRETS_FILE_NAME = 'secrets.json';

/**
 * The names of the keys the desktop app saved in the data folder (encrypted with the system keychain,
 * which only it can read); none when there is no such file or it cannot be read. For entry points that
 * cannot decrypt them (the CLI), to say why a key is missing.
 */
export function keychainSecretNames(dataDir: string): string[] {
  try {
    const parsed = SecretsFile.safeParse(JSON.parse(readFileSync(join(dataDir, SECRETS_FILE_NAME), 'utf8')));
    return parsed.success ? Object.keys(parsed.data.secrets) : [];
  } catch {
    return [];
  }
}

/**
 * Secrets encrypted by an `Encryptor`, one JSON file of ciphertexts (mode 0600, replaced atomically).
 * A damaged file is kept aside as `.bad` and treated as empty, so the user can enter the key again.
 */
export class EncryptedFileSecretStore implements SecretStore {
  readonly writable = true;
  private readonly path: string;
  private cache: SecretsFile | null = null;

  constructor(
    dir: string,
    private readonly encryptor: Encryptor,
    private readonly onWarning: (message: string) => void = (message) => console.error(`[deskhand] ${message}`),
  ) {
    this.path = join(dir, SECRETS_FILE_NAME);
  }

  async get(name: string): Promise<string | null> {
    const entry = this.read().secrets[checkName(name)];
    if (!entry) return null;
    const data = Buffer.from(entry.ciphertext, 'base64');
    let decrypted: { text: string; reEncrypt: boolean };
    try {
      decrypted = this.encryptor.decryptWithStatus
        ? await this.encryptor.decryptWithStatus(data)
        : { text: await this.encryptor.decrypt(data), reEncrypt: false };
    } catch (error) {
      // Another user's or machine's keychain, or a reset keychain: the key must be entered again.
      this.onWarning(`the saved ${name} key cannot be decrypted (${(error as Error).message}); enter it again in Settings`);
      return null;
    }
    if (decrypted.reEncrypt) await this.reEncrypt(name, decrypted.text);
    return decrypted.text;
  }

  /** Saves a key again under the keychain's new key; failing that, the old ciphertext still reads. */
  private async reEncrypt(name: string, text: string): Promise<void> {
    try {
      await this.set(name, text);
    } catch (error) {
      this.onWarning(`the saved ${name} key could not be encrypted again with the keychain's new key (${(error as Error).message}); it is used as it is`);
    }
  }

  async set(name: string, value: string): Promise<void> {
    checkName(name);
    const ciphertext = await this.encryptor.encrypt(value);
    if (value.length >= 8 && ciphertext.toString('utf8').includes(value)) {
      // An encryptor that passes text through would put the key on disk in the clear: refuse.
      throw new Error('the encryptor returned the text unchanged; the key was not saved');
    }
    // A copy: the cache changes only once the file did (a failed write must not leave the key "set").
    const file = structuredClone(this.read());
    file.secrets[name] = { ciphertext: ciphertext.toString('base64'), protected: this.encryptor.isProtected() };
    this.write(file);
  }

  async delete(name: string): Promise<void> {
    if (!Object.hasOwn(this.read().secrets, checkName(name))) return;
    const file = structuredClone(this.read());
    delete file.secrets[name];
    this.write(file);
  }

  async status(name: string): Promise<SecretStatus> {
    const entry = this.read().secrets[checkName(name)];
    return entry ? { set: true, protected: entry.protected, source: 'encrypted-file' } : NOT_SET;
  }

  private read(): SecretsFile {
    if (this.cache) return this.cache;
    let file: SecretsFile = { version: 1, secrets: {} };
    if (existsSync(this.path)) {
      try {
        file = SecretsFile.parse(JSON.parse(readFileSync(this.path, 'utf8')));
      } catch (error) {
        const aside = `${this.path}.bad`;
        renameSync(this.path, aside);
        this.onWarning(`${this.path} was damaged (${(error as Error).message.split('\n')[0]}); kept as ${aside}`);
      }
    }
    this.cache = file;
    return file;
  }

  private write(file: SecretsFile): void {
    writeJsonAtomic(this.path, file);
    this.cache = file;
  }
}

/** A writable store over the environment: reads the writable one first, writes only to it. */
export class LayeredSecretStore implements SecretStore {
  readonly writable = true;

  constructor(
    private readonly top: SecretStore,
    private readonly base: SecretStore,
  ) {}

  async get(name: string): Promise<string | null> {
    return (await this.top.get(name)) ?? (await this.base.get(name));
  }

  async set(name: string, value: string): Promise<void> {
    await this.top.set(name, value);
  }

  /** Removes the saved key; a key from the environment, if any, then shows through. */
  async delete(name: string): Promise<void> {
    await this.top.delete(name);
  }

  async status(name: string): Promise<SecretStatus> {
    const top = await this.top.status(name);
    return top.set ? top : this.base.status(name);
  }
}

export interface SecretStoreOptions {
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  /** The desktop app's keychain; without one (browser mode, CLI) keys set in Settings live in memory. */
  encryptor?: Encryptor | null;
  onWarning?: (message: string) => void;
}

/** The composition every entry point uses: saved (or in-memory) keys over the environment. */
export function createSecretStore(options: SecretStoreOptions): SecretStore & { readonly storage: SecretStorageKind } {
  const env = new EnvSecretStore(options.env ?? process.env);
  const top = options.encryptor
    ? new EncryptedFileSecretStore(options.dataDir, options.encryptor, options.onWarning)
    : new MemorySecretStore();
  const storage: SecretStorageKind = !options.encryptor
    ? 'memory'
    : options.encryptor.isProtected()
      ? 'keychain'
      : 'unprotected-file';
  return Object.assign(new LayeredSecretStore(top, env), { storage });
}

export type SecretStorageKind = 'keychain' | 'unprotected-file' | 'memory';

/** What the settings page says about where keys entered there go. */
export function secretStorageNote(kind: SecretStorageKind): string {
  switch (kind) {
    case 'keychain':
      return 'API keys entered here are encrypted with the system keychain. A key from OPENAI_API_KEY is used when none is entered.';
    case 'unprotected-file':
      return (
        'API keys entered here are NOT protected: this system has no keychain Deskhand can use (Linux "basic_text" ' +
        'storage), so the saved key is only obfuscated. Prefer OPENAI_API_KEY, or install and unlock a keyring ' +
        '(GNOME Keyring, KWallet).'
      );
    case 'memory':
      return 'API keys entered here are kept in memory for this run only and never written to disk. Set OPENAI_API_KEY to keep one.';
  }
}
