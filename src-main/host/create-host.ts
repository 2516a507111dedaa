import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { join } from 'node:path';
import type { ModelWithPrices } from '../agents/runtime';
import { AuditStore } from '../commands/audit-store';
import { CommandGate } from '../commands/command-gate';
import { DeviceConnection, type DeviceTransportFactory } from '../commands/device-connection';
import { Dispatcher } from '../commands/dispatcher';
import { ExternalServers } from '../commands/external-servers';
import { SafetyPolicy } from '../commands/safety-policy';
import { isDiskFull } from '../common/storage-errors';
import { logError, scrubLogsWith } from '../common/log';
import { SecretScrubber } from '../common/scrub';
import { HOST_ONLY_TOOLS } from '../device/contract';
import type { DatabaseRepairView } from '../protocol';
import type { DeviceConfig } from '../device/config';
import { deviceLaunchSpec, isSecretEnv, type DeviceLaunchSpec } from '../device/launch';
import { ModelClient } from '../llm/model-client';
import { BlackboardStore } from '../memory/blackboard-store';
import type { Db, Scrub } from '../memory/database';
import { InteractionStore } from '../memory/interaction-store';
import { DataDiskSpace } from '../memory/disk-space';
import { hasDamagedCopies, openRepairing, repairView } from '../memory/repair';
import { ScreenshotFiles } from '../memory/screenshot-files';
import { SessionStore } from '../memory/session-store';
import { loadPromptLibrary } from '../prompter/prompt-library';
import { LocalDocsRetriever } from '../prompter/retrieved-docs';
import { renderToolDocs } from '../prompter/tool-docs';
import { InteractionBroker, type AutoResponder } from '../session/interaction-broker';
import { SessionService, type SettingsHandler } from '../session/session-service';
import { apiKeyFromEnv, NO_MODEL_MESSAGE, sameEndpoint, tokenVariables, type DeskhandConfig, type ModelProfile } from './config';
import { claimDataDir, type DataDirLock } from './data-dir-lock';
import { deviceCommandsDir, endOrphanCommands } from './orphan-commands';
import { endOrphanServers } from './orphan-servers';
import { appRoot, promptsDir, runningFromBuild } from './paths';
import { ProtocolEndpoint } from './protocol-endpoint';
import { recoverInterrupted } from './recover-interrupted';
import { ServerProcessRecord } from './server-process-record';
import { serverStatusHandler } from './server-status';

/** A password typed into a form this short (a PIN) is still left out of what is stored. */
const MIN_TYPED_SECRET_LENGTH = 4;

export interface HostOptions {
  dataDir: string;
  config: DeskhandConfig;
  env?: NodeJS.ProcessEnv;
  /** Replaces the real device client (tests use a stand-in). */
  deviceLaunch?: DeviceLaunchSpec;
  /** More for the device client the host starts by default (browser mode's page mark: protectTitle). */
  deviceConfig?: Partial<DeviceConfig>;
  /** Reaches the device client another way (the Electron shell: a utility process). */
  deviceTransport?: DeviceTransportFactory;
  /** better-sqlite3 built for another ABI (Electron's). */
  sqliteNativeBinding?: string;
  /** The API key per model profile ('host', 'app'); by default OPENAI_API_KEY from the environment. */
  apiKey?: (profile: 'host' | 'app') => string | null;
  /** Answers questions and approvals without a person (the CLI). */
  autoResponder?: AutoResponder;
  settings?: SettingsHandler;
  /** Looks up a named secret (an external MCP server's token); by default from the environment. */
  getSecret?: (name: string) => Promise<string | null> | string | null;
  /** Settings changed while running (from the Settings form): the next round uses them. */
  watchConfig?: (listener: (config: DeskhandConfig) => void) => void;
  /**
   * The data folder, already locked by the entry point (claimDataDir) before it read the settings there;
   * the host lets it go when it closes, or when it cannot start. By default the host locks it itself.
   */
  dataDirLock?: DataDirLock;
}

export interface Host {
  readonly dataDir: string;
  readonly endpoint: ProtocolEndpoint;
  readonly sessions: SessionService;
  readonly screenshots: ScreenshotFiles;
  readonly store: SessionStore;
  readonly audit: AuditStore;
  /** Sessions found unfinished at start-up (the previous run was killed). */
  readonly interrupted: readonly string[];
  /** Set when the database was found damaged at start-up and replaced by what could be read of it. */
  readonly repair: DatabaseRepairView | null;
  /** The device client's state, for diagnostics: its process id while running, and how often it died. */
  deviceStatus(): { pid: number | null; restarts: number };
  close(): Promise<void>;
}

/** The device client as the host starts it by default: the screenshot settings, and no secrets in its environment. */
export function hostDeviceLaunch(config: DeskhandConfig, env: NodeJS.ProcessEnv, extra: Partial<DeviceConfig> = {}): DeviceLaunchSpec {
  return deviceLaunchSpec({
    root: appRoot(),
    mode: runningFromBuild() ? 'built' : 'source',
    env,
    secretNames: tokenVariables(config),
    config: {
      format: config.device.screenshotFormat,
      quality: config.device.screenshotQuality,
      maxEdge: config.device.screenshotMaxLongEdge,
      ...extra,
    },
  });
}

/** The composition root: the one place that builds the host core from its parts. */
export function createHost(options: HostOptions): Host {
  const { dataDir } = options;
  let config = options.config;
  if (options.dataDirLock && options.dataDirLock.dataDir !== dataDir) {
    options.dataDirLock.release();
    throw new Error(`the data folder locked (${options.dataDirLock.dataDir}) is not the host's (${dataDir})`);
  }
  // First: nothing in the folder is read or changed while another Deskhand uses it.
  const lock = options.dataDirLock ?? claimDataDir(dataDir);
  const unlock = (): void => lock.release();
  // Under the lock: only this host ends what a killed one left running, and before it starts its own.
  try {
    endOrphanServers(dataDir);
  } catch (error) {
    logError(`[deskhand] MCP servers left running by a Deskhand that was killed could not all be ended: ${(error as Error).message}`);
  }
  const serverProcesses = new ServerProcessRecord(dataDir);
  // Shell commands a killed device client left running: those of a killed host's clients now, those of
  // this host's clients whenever one ends (onExit below). One cleanup at a time, so a command is ended
  // (and logged) once. Not waited for at start-up; close() waits.
  let orphanCommandCleanup: Promise<void> = Promise.resolve();
  const endDeviceOrphans = (): void => {
    orphanCommandCleanup = orphanCommandCleanup
      .then(() => endOrphanCommands(dataDir))
      .then(
        () => undefined,
        (error: Error) => logError(`[deskhand] commands left running by a killed device client could not all be ended: ${error.message}`),
      );
  };
  endDeviceOrphans();
  let prompts: ReturnType<typeof loadPromptLibrary>;
  let policy: SafetyPolicy;
  try {
    // Checked now, so a broken prompt file or safety rule stops start-up with a clear message.
    prompts = loadPromptLibrary(promptsDir());
    policy = new SafetyPolicy(config.safety);
  } catch (error) {
    unlock();
    throw error;
  }
  // OPENAI_API_KEY is the host profile's key (the secret store reads it the same way).
  const apiKey = options.apiKey ?? ((profile: string) => (profile === 'host' ? apiKeyFromEnv(options.env) : null));
  const env = options.env ?? process.env;
  const getSecret = options.getSecret ?? ((name: string) => env[name] ?? null);
  const tokensFetched = new Set<string>();
  // The environment is the host's for its whole life: what looks secret in it is found once, not on every scrub.
  const envSecrets = Object.entries(env)
    .filter(([name, value]) => value !== undefined && isSecretEnv(name, value))
    .map(([, value]) => value);
  // The variables holding MCP servers' tokens are secrets whatever they are called (tokenSecret: "GITHUB_MCP"),
  // as the settings name them now: a server added in Settings names one the device client still has.
  const tokenEnvSecrets = (): string[] => [...tokenVariables(config)].flatMap((name) => env[name] ?? []);
  // Keys and tokens never reach the database, events, exports or prompts, even when a command prints them.
  const scrubber = new SecretScrubber(() => [apiKey('host'), apiKey('app'), ...tokensFetched, ...envSecrets, ...tokenEnvSecrets()]);
  // Passwords the user typed into an agent's form: the agent that asked gets them in its prompts, but
  // no record, event, export or log line keeps them.
  const typedSecrets = new Set<string>();
  const typedScrubber = new SecretScrubber(() => typedSecrets, MIN_TYPED_SECRET_LENGTH);
  const scrubForModel: Scrub = (value) => scrubber.deep(value);
  const scrub: Scrub = (value) => typedScrubber.deep(scrubber.deep(value));
  const stopScrubbingLogs = scrubLogsWith((text) => typedScrubber.text(scrubber.text(text)));
  const file = join(dataDir, 'deskhand.sqlite');
  let db: Db;
  let repaired: ReturnType<typeof openRepairing>['repair'];
  const screenshots = new ScreenshotFiles(dataDir);
  try {
    ({ db, repair: repaired } = openRepairing(file, {
      nativeBinding: options.sqliteNativeBinding,
      stepsTaken: (sessionId) => screenshots.stepsTaken(sessionId),
    }));
  } catch (error) {
    stopScrubbingLogs();
    unlock();
    throw error;
  }
  const store = new SessionStore(db, () => config.limits.maxStepsPerRound, scrub);
  const interactions = new InteractionStore(db, scrub);
  const audit = new AuditStore(db);
  let interrupted: string[];
  try {
    interrupted = recoverInterrupted(store, interactions, {
      record: (entry) => audit.record(scrub(entry)),
      markUnfinishedUnknown: () => audit.markUnfinishedUnknown(),
    });
  } catch (error) {
    // Its first writes: a full disk, a read-only file or another program's lock shows here.
    db.close();
    stopScrubbingLogs();
    unlock();
    throw new Error(`cannot recover the sessions in ${file}: ${(error as Error).message}`, { cause: error });
  }
  const repair = repaired ? repairView(repaired, store) : null;
  if (repair) {
    logError(
      `[deskhand] the database was damaged (${repair.reason}); it is kept as ${repair.damagedFile}, and a new one holds ` +
        `what could be read of it: ${repair.sessions} sessions (${repair.rebuiltSessions} rebuilt from their steps), ${repair.steps} steps` +
        (repair.partsLost ? '; parts of it could not be read' : ''),
    );
  }
  // While a damaged database is kept, the screenshots of sessions only it still holds are kept too.
  if (!hasDamagedCopies(file)) {
    screenshots
      .removeOrphanFolders((id) => store.hasSession(id))
      .catch((error: Error) => logError(`[deskhand] the screenshots of deleted sessions could not all be removed: ${error.message}`));
  }
  const device = new DeviceConnection({
    launch: options.deviceLaunch ?? hostDeviceLaunch(config, env, { commandRecordDir: deviceCommandsDir(dataDir), ...options.deviceConfig }),
    createTransport: options.deviceTransport,
    defaultTimeoutMs: config.device.toolTimeoutMs,
    onLog: (line) => logError(`[device] ${line}`),
    onExit: endDeviceOrphans,
  });
  // Made without servers too: the Settings may add some while the host runs.
  const externals = new ExternalServers({
    servers: config.mcpServers,
    async getSecret(name) {
      const token = await getSecret(name);
      if (token) tokensFetched.add(token);
      return token;
    },
    modelKeys: () => [apiKey('host'), apiKey('app')],
    env,
    onLog: (server, line) => logError(`[mcp:${server}] ${line}`),
    processes: serverProcesses,
  });
  const dispatcher = new Dispatcher(device, externals);
  // Device tools are Deskhand's own; an external server's tools count as sensitive unless marked trusted.
  const gate = new CommandGate(
    dispatcher,
    policy,
    {
      record: (entry) => audit.record(scrub(entry)),
      begin: (entry) => audit.begin(scrub(entry)),
      finish: (id, outcome) => audit.finish(id, scrub(outcome)),
    },
    (tool) => !externals.handles(tool) || externals.isTrusted(tool),
  );
  options.watchConfig?.((next) => {
    try {
      gate.setPolicy(new SafetyPolicy(next.safety));
      externals.update(next.mcpServers);
      config = next;
    } catch (error) {
      logError(`[deskhand] the new settings were not applied: ${(error as Error).message}`);
    }
  });

  // One client per profile and key, kept across rounds: it remembers what its endpoint refused (temperature).
  const clients = new Map<string, ModelWithPrices>();
  const client = (profile: ModelProfile, key: string | null): ModelWithPrices => {
    const id = JSON.stringify([profile, key]);
    let made = clients.get(id);
    if (!made) {
      if (clients.size >= 8) clients.clear(); // settings changed many times: drop the old ones
      made = {
        client: new ModelClient({ ...profile, apiKey: key ?? 'not-needed', scrub: scrubForModel }),
        inputPricePerMTok: profile.inputPricePerMTok,
        outputPricePerMTok: profile.outputPricePerMTok,
      };
      clients.set(id, made);
    }
    return made;
  };

  // The broker's events go out through the session service, built just below (the closure runs later).
  const broker = new InteractionBroker(interactions, (event) => sessions.emit(event), options.autoResponder ?? null);
  const sessions = new SessionService({
    store,
    blackboards: new BlackboardStore(db, scrub, scrubForModel),
    interactions,
    screenshots,
    disk: new DataDiskSpace(dataDir),
    gate,
    dispatcher,
    broker,
    prompts,
    docs: new LocalDocsRetriever(join(dataDir, 'docs')),
    get config() {
      return config;
    },
    settings: options.settings ?? null,
    // An error of an HTTP library may repeat a token sent: a status leaves the host scrubbed as events do.
    servers: serverStatusHandler(externals, (text) => scrub(text)),
    repair,
    scrub,
    rememberSecret: (value) => typedSecrets.add(value),
    models() {
      const host = config.models.host;
      if (!host) throw new Error(NO_MODEL_MESSAGE);
      const app = config.models.app;
      return {
        host: client(host, apiKey('host')),
        // The host's key goes only where the host's does: a key is not sent to another endpoint.
        app: app ? client(app, apiKey('app') ?? (sameEndpoint(app.baseUrl, host.baseUrl) ? apiKey('host') : null)) : client(host, apiKey('host')),
      };
    },
    async tools() {
      const own = await device.tools();
      const tools: Tool[] = [...own, ...(await externals.tools())];
      const screenless = own.some((tool) => tool.name === 'list_windows') ? null : (await device.instructions()) || 'the device client offers no screen tools';
      return { names: new Set(tools.map((tool) => tool.name)), docs: renderToolDocs(tools, HOST_ONLY_TOOLS), screenless };
    },
  });

  // A completion the full disk held back is written as soon as a step could be saved (there is room
  // again), not at the next command: a crash meanwhile would leave the row 'unknown'.
  sessions.subscribe((event) => {
    if (event.kind !== 'step.added') return;
    try {
      audit.flush();
    } catch (error) {
      // Still no room for it: kept for the next entry, or for closing.
      if (!isDiskFull(error)) throw error;
    }
  });

  return {
    dataDir,
    endpoint: new ProtocolEndpoint(sessions),
    sessions,
    screenshots,
    store,
    audit,
    interrupted,
    repair,
    deviceStatus: () => ({ pid: device.pid, restarts: device.restartCount }),
    async close() {
      await sessions.shutdown();
      await externals.close();
      serverProcesses.close();
      await device.close();
      await orphanCommandCleanup;
      try {
        audit.flush();
      } catch (error) {
        logError(`[deskhand] audit rows of commands that ran stay unfinished (marked unknown at the next start): ${(error as Error).message}`);
      }
      db.close();
      stopScrubbingLogs();
      unlock();
    },
  };
}
