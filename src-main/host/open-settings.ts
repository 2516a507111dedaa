import { createSecretStore, type Encryptor } from './secrets';
import { SettingsStore } from './settings-store';

/**
 * Settings and keys for an entry point: saved settings over the environment; keys from the keychain when
 * an encryptor is given (the desktop app), else from the environment or kept in memory for the run.
 */
export async function openSettings(dataDir: string, env: NodeJS.ProcessEnv, encryptor: Encryptor | null = null): Promise<SettingsStore> {
  const secrets = createSecretStore({ dataDir, env, encryptor });
  return SettingsStore.open({ dataDir, env, secrets, secretStorage: secrets.storage });
}
