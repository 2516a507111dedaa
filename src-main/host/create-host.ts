import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AppAgent } from '../agents/app-agent';
import { DeviceConnection } from '../commands/device-connection';
import { Dispatcher } from '../commands/dispatcher';
import { ModelClient } from '../llm/model-client';
import { openDatabase, type Db } from '../memory/database';
import { ScreenshotFiles } from '../memory/screenshot-files';
import { SessionStore } from '../memory/session-store';
import { AppPrompter, APP_AGENT_PLACEHOLDERS } from '../prompter/app-prompter';
import { loadPromptFile } from '../prompter/template';
import { renderToolDocs } from '../prompter/tool-docs';
import { SessionService } from '../session/session-service';
import { apiKeyFromEnv, NO_MODEL_MESSAGE, type DeskhandConfig } from './config';
import { deviceLaunchSpec, type DeviceLaunchSpec } from '../device/launch';
import { appRoot, promptsDir, runningFromBuild } from './paths';
import { ProtocolEndpoint } from './protocol-endpoint';

export interface HostOptions {
  dataDir: string;
  config: DeskhandConfig;
  env?: NodeJS.ProcessEnv;
  /** Replaces the real device client (tests use a stand-in). */
  deviceLaunch?: DeviceLaunchSpec;
}

export interface Host {
  readonly dataDir: string;
  readonly endpoint: ProtocolEndpoint;
  readonly sessions: SessionService;
  readonly screenshots: ScreenshotFiles;
  readonly store: SessionStore;
  /** Sessions found unfinished at start-up (the previous run was killed). */
  readonly interrupted: readonly string[];
  close(): Promise<void>;
}

/** The composition root: the one place that builds the host core from its parts. */
export function createHost(options: HostOptions): Host {
  const { config, dataDir } = options;
  mkdirSync(dataDir, { recursive: true });
  // Templates are checked now, so a broken prompt file stops start-up with a clear message.
  const appTemplates = loadPromptFile(join(promptsDir(), 'app_agent.yaml'), APP_AGENT_PLACEHOLDERS);
  const db: Db = openDatabase(join(dataDir, 'deskhand.sqlite'));
  const store = new SessionStore(db);
  const interrupted = store.markUnfinishedInterrupted();
  const screenshots = new ScreenshotFiles(dataDir);
  const device = new DeviceConnection({
    launch:
      options.deviceLaunch ??
      deviceLaunchSpec({
        root: appRoot(),
        mode: runningFromBuild() ? 'built' : 'source',
        env: options.env ?? process.env,
        config: {
          format: config.device.screenshotFormat,
          quality: config.device.screenshotQuality,
          maxEdge: config.device.screenshotMaxLongEdge,
        },
      }),
    defaultTimeoutMs: config.device.toolTimeoutMs,
    onLog: (line) => console.error(`[device] ${line}`),
  });
  const dispatcher = new Dispatcher(device);

  const sessions = new SessionService({
    store,
    screenshots,
    limits: config.limits,
    async createAgent(mode) {
      if (mode !== 'desktop') throw new Error(`the ${mode} mode is not available in this build`);
      const profile = config.models.app ?? config.models.host;
      if (!profile) throw new Error(NO_MODEL_MESSAGE);
      const tools = await device.tools();
      return new AppAgent({
        dispatcher,
        model: new ModelClient({ ...profile, apiKey: apiKeyFromEnv(options.env) ?? 'not-needed' }),
        prompter: new AppPrompter(appTemplates, renderToolDocs(tools, new Set(['screenshot']))),
        recentSteps: config.prompt.recentSteps,
      });
    },
  });

  return {
    dataDir,
    endpoint: new ProtocolEndpoint(sessions),
    sessions,
    screenshots,
    store,
    interrupted,
    async close() {
      await sessions.shutdown();
      await device.close();
      db.close();
    },
  };
}
