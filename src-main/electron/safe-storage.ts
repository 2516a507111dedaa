/**
 * The `Encryptor` for saved API keys, backed by Electron's safeStorage (macOS Keychain, Windows DPAPI,
 * Linux libsecret/KWallet). The asynchronous API (`encryptStringAsync` / `decryptStringAsync`, newer
 * Electron) is used where it exists, the synchronous one otherwise.
 *
 * On Linux without a keyring Chromium falls back to `basic_text`: a fixed key that protects nothing.
 * Keys are then still stored as ciphertext (never as plain text), but reported as not protected, and
 * the settings page says so.
 */
import type { Encryptor } from '../host/secrets';

export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
  getSelectedStorageBackend?(): string;
  isAsyncEncryptionAvailable?(): Promise<boolean>;
  encryptStringAsync?(plainText: string): Promise<Buffer>;
  decryptStringAsync?(encrypted: Buffer): Promise<{ shouldReEncrypt: boolean; result: string }>;
}

/** Linux backends that do not keep the key from other programs of the same user. */
const UNPROTECTED_BACKENDS = new Set(['basic_text', 'unknown']);

export interface SafeStorageInfo {
  encryptor: Encryptor | null;
  /** The Linux backend name, or the platform's own keychain name elsewhere. */
  backend: string;
  protected: boolean;
}

function backendOf(safeStorage: SafeStorageLike, platform: NodeJS.Platform): string {
  if (platform === 'darwin') return 'keychain';
  if (platform === 'win32') return 'dpapi';
  try {
    return safeStorage.getSelectedStorageBackend?.() ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Call after the app is ready (before that Linux reports no backend). Null encryptor: unavailable. */
export async function createSafeStorageEncryptor(
  safeStorage: SafeStorageLike,
  platform: NodeJS.Platform = process.platform,
): Promise<SafeStorageInfo> {
  const useAsync = Boolean(safeStorage.encryptStringAsync && safeStorage.decryptStringAsync);
  const available = useAsync && safeStorage.isAsyncEncryptionAvailable
    ? await safeStorage.isAsyncEncryptionAvailable()
    : safeStorage.isEncryptionAvailable();
  const backend = backendOf(safeStorage, platform);
  const isProtected = available && !(platform === 'linux' && UNPROTECTED_BACKENDS.has(backend));
  if (!available) return { encryptor: null, backend, protected: false };

  const decryptWithStatus = async (data: Buffer): Promise<{ text: string; reEncrypt: boolean }> => {
    if (useAsync && safeStorage.decryptStringAsync) {
      const { result, shouldReEncrypt } = await safeStorage.decryptStringAsync(data);
      return { text: result, reEncrypt: shouldReEncrypt };
    }
    return { text: safeStorage.decryptString(data), reEncrypt: false };
  };
  const encryptor: Encryptor = {
    isProtected: () => isProtected,
    encrypt: async (text) =>
      useAsync && safeStorage.encryptStringAsync ? safeStorage.encryptStringAsync(text) : safeStorage.encryptString(text),
    decrypt: async (data) => (await decryptWithStatus(data)).text,
    decryptWithStatus,
  };
  return { encryptor, backend, protected: isProtected };
}
