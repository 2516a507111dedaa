import { profilesNeedingKeys } from './config';
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
 * Model profiles that need a key, have none here, and have one saved by the desktop app: encrypted
 * with the system keychain, which only the desktop app can read (browser mode and the CLI cannot).
 */
export function unreadableSavedKeys(dataDir: string, settings: SettingsStore): Array<'host' | 'app'> {
  const saved = keychainSecretNames(dataDir);
  return profilesNeedingKeys(settings.config()).filter((profile) => settings.apiKey(profile) === null && saved.includes(profile));
}
