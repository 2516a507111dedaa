import { profilesNeedingKeys } from './config';
import { claimDataDir, type DataDirLock } from './data-dir-lock';
import { createSecretStore, keychainSecretNames, type Encryptor } from './secrets';
import { SettingsStore } from './settings-store';

/**
 * Settings and keys for an entry point: saved settings over the environment; keys from the keychain when
 * an encryptor is given (the desktop app), else from the environment or kept in memory for the run.
 */
export async function openSettings(dataDir: string, env: NodeJS.ProcessEnv, encryptor: Encryptor | null = null): Promise<SettingsStore> {
  const secrets = createSecretStore({ dataDir, env, encryptor });
  return SettingsStore.open({ dataDir, env, secrets, secretStorage: secrets.storage });
}

/**
 * What every entry point (desktop app, browser mode, CLI) does first: lock the data folder, then open
 * its settings. Opening them may rewrite a damaged settings.json (salvage): never under another
 * Deskhand that runs on the folder, which stops this one here with DataDirInUseError. The lock goes to
 * createHost (HostOptions.dataDirLock); the caller releases it if it stops before.
 */
export async function openDataDir(
  dataDir: string,
  env: NodeJS.ProcessEnv,
  encryptor: Encryptor | null = null,
): Promise<{ lock: DataDirLock; settings: SettingsStore }> {
  const lock = claimDataDir(dataDir);
  try {
    return { lock, settings: await openSettings(dataDir, env, encryptor) };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/**
 * Model profiles that need a key, have none here, and have one saved by the desktop app: encrypted
 * with the system keychain, which only the desktop app can read (browser mode and the CLI cannot).
 */
export function unreadableSavedKeys(dataDir: string, settings: SettingsStore): Array<'host' | 'app'> {
  const saved = keychainSecretNames(dataDir);
  return profilesNeedingKeys(settings.config()).filter((profile) => settings.apiKey(profile) === null && saved.includes(profile));
}
