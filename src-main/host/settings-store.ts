import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { SettingsView } from '../protocol';
import { CommandError, type SettingsHandler } from '../session/session-service';
import { configFromEnv, DeskhandConfig } from './config';
import { readValidatedJson, writeJsonAtomic } from '../common/json-file';
import { settingLabel } from './setting-labels';
import { SecretName, type SecretStorageKind, secretStorageNote, type SecretStore } from './secrets';

/**
 * User settings: what the user changed in Settings, as JSON in the data folder, merged over the
 * environment's configuration (`configFromEnv`), which is merged over the schema's defaults.
 *
 * The file holds only what differs from the environment, by whole values two levels deep (a section's
 * field, or a whole model profile), so a later change of OPENAI_BASE_URL still applies to whatever the
 * user did not override, and a profile is never stored half.
 *
 * API keys never pass through here: `DeskhandConfig` has no field for them (unknown fields are dropped
 * when values are parsed), and `applySettings` hands them to the secret store, write-only.
 */

export const SETTINGS_FILE_NAME = 'settings.json';

export interface FieldError {
  /** Dotted path into the settings, e.g. `models.host.baseUrl`, or `secrets.host` for a key. */
  path: string;
  message: string;
}

export type ApplyResult = { ok: true; view: SettingsView } | { ok: false; errors: FieldError[] };

type Json = Record<string, unknown>;

/** A saved value that was dropped at start-up, and why. */
interface DroppedValue {
  path: readonly PropertyKey[];
  why: string;
}

function isPlainObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Objects merge key by key; anything else (arrays, null, scalars) replaces. `over` wins. */
export function deepMerge(base: unknown, over: unknown): unknown {
  if (over === undefined) return base;
  if (!isPlainObject(base) || !isPlainObject(over)) return over;
  const result: Json = { ...base };
  for (const [key, value] of Object.entries(over)) result[key] = deepMerge(base[key], value);
  return result;
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * What in `values` differs from `base`: top-level sections are compared field by field; a field's
 * value (a whole model profile, a list, a number) is kept whole. Sections that are not objects in the
 * schema (`mcpServers`) are kept whole too.
 */
export function overridesOf(base: Json, values: Json): Json {
  const result: Json = {};
  for (const [section, value] of Object.entries(values)) {
    const baseSection = base[section];
    if (isPlainObject(value) && isPlainObject(baseSection)) {
      const changed: Json = {};
      for (const [key, field] of Object.entries(value)) {
        if (!deepEqual(field, baseSection[key])) changed[key] = field;
      }
      if (Object.keys(changed).length > 0) result[section] = changed;
    } else if (!deepEqual(value, baseSection)) {
      result[section] = value;
    }
  }
  return result;
}

function fieldErrors(error: z.ZodError, prefix = ''): FieldError[] {
  return error.issues.map((issue) => ({
    path: prefix + issue.path.map(String).join('.'),
    message: issue.message,
  }));
}

/**
 * Removes from saved settings what an issue at `path` is about: the value there, or, when the saved
 * settings have nothing at the full path (a required field missing), the deepest thing along it. One
 * bad entry of a list goes alone; a list or an object left empty goes too, so its default applies
 * again (an emptied deny list would deny nothing). Returns false when the issue is not in the saved
 * settings at all.
 */
function dropAt(saved: Json, path: readonly PropertyKey[]): boolean {
  const trail: Array<{ holder: Json | unknown[]; key: PropertyKey }> = [];
  let node: unknown = saved;
  for (const key of path) {
    const holds = Array.isArray(node) ? typeof key === 'number' && key < node.length : isPlainObject(node) && typeof key === 'string' && key in node;
    if (!holds) break;
    trail.push({ holder: node as Json | unknown[], key });
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  if (trail.length === 0) return false;
  for (let i = trail.length - 1; i >= 0; i--) {
    const { holder, key } = trail[i] as { holder: Json | unknown[]; key: PropertyKey };
    if (Array.isArray(holder)) holder.splice(key as number, 1);
    else delete holder[key as string];
    const empty = Array.isArray(holder) ? holder.length === 0 : Object.keys(holder).length === 0;
    if (!empty || i === 0) break;
  }
  return true;
}

/**
 * Paths of the names in `input` that `output` (what the schema made of it) does not have: names that
 * are no setting, which parsing drops.
 */
function unknownPaths(input: unknown, output: unknown, path: PropertyKey[] = []): PropertyKey[][] {
  if (Array.isArray(input) && Array.isArray(output)) return input.flatMap((item, index) => unknownPaths(item, output[index], [...path, index]));
  if (!isPlainObject(input) || !isPlainObject(output)) return [];
  return Object.entries(input).flatMap(([key, value]) => (Object.hasOwn(output, key) ? unknownPaths(value, output[key], [...path, key]) : [[...path, key]]));
}

/** The model profiles a key can be set for: the keys of `models` in the schema. */
export const MODEL_PROFILES = Object.keys(DeskhandConfig.shape.models.unwrap().shape) as Array<
  keyof DeskhandConfig['models']
>;

/**
 * The settings form's JSON Schema (what the form accepts, defaults included). Every setting has a
 * title and the choices of one with fixed values are labelled (`oneOf` of `const`s with titles): the
 * dialog shows those words, and names a field by its title in its messages.
 */
export function settingsSchema(): Json {
  return z.toJSONSchema(DeskhandConfig, {
    io: 'input',
    unrepresentable: 'any',
    override: ({ jsonSchema }) => {
      // A labelled choice (config.ts `choices`) says the same as zod's bare enum, with titles.
      if (Array.isArray(jsonSchema.oneOf) && Array.isArray(jsonSchema.enum)) delete jsonSchema.enum;
    },
  }) as Json;
}

export interface SettingsStoreOptions {
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  secrets: SecretStore;
  /** Where keys entered in Settings go, for the note on the settings page. */
  secretStorage: SecretStorageKind;
  /** Told once about a damaged settings file; default: console.error. */
  onWarning?: (message: string) => void;
}

export class SettingsStore {
  readonly path: string;
  /** Why the saved settings were not used at start-up (damaged file), or null. */
  readonly loadProblem: string | null;
  /** The same for the Settings page, naming each setting as the dialog labels it. */
  private readonly loadNote: string | null;
  private readonly base: DeskhandConfig;
  private overrides: Json;
  private current: DeskhandConfig;
  private readonly listeners = new Set<(config: DeskhandConfig) => void>();
  /** API keys per profile as last read from the secret store, for the host's synchronous lookups. */
  private readonly keys = new Map<string, string | null>();
  /** The change being applied (applySettings), which the next one waits for. */
  private applying: Promise<unknown> = Promise.resolve();

  /** Opens the settings and reads the API keys once (`apiKey` answers from memory afterwards). */
  static async open(options: SettingsStoreOptions): Promise<SettingsStore> {
    const store = new SettingsStore(options);
    await store.reloadKeys();
    return store;
  }

  constructor(private readonly options: SettingsStoreOptions) {
    this.path = join(options.dataDir, SETTINGS_FILE_NAME);
    this.base = configFromEnv(options.env ?? process.env);
    const read = this.readSaved();
    this.loadProblem = read.problem;
    this.loadNote = read.note;
    if (read.problem) (options.onWarning ?? ((message) => console.error(`[deskhand] ${message}`)))(read.problem);
    this.overrides = read.value;
    this.current = DeskhandConfig.parse(deepMerge(this.base, this.overrides));
  }

  /** The configuration in effect: defaults < environment < settings. */
  config(): DeskhandConfig {
    return this.current;
  }

  /**
   * The key for a model profile (a saved key, else the environment's), for `HostOptions.apiKey`. Read
   * at `open` and after every change made through `applySettings`.
   */
  apiKey(profile: string): string | null {
    return this.keys.get(profile) ?? null;
  }

  async reloadKeys(): Promise<void> {
    for (const profile of MODEL_PROFILES) this.keys.set(profile, await this.options.secrets.get(profile));
  }

  /**
   * The host's handler for settings.get / settings.set. Invalid values or keys are refused with a
   * bad_message error that lists each field and its message.
   */
  handler(): SettingsHandler {
    return {
      get: () => this.settingsView(),
      set: async (values, secrets) => {
        const result = await this.applySettings(values, secrets ?? {});
        if (!result.ok) {
          throw new CommandError('bad_message', result.errors.map((error) => `${error.path || 'settings'}: ${error.message}`).join('; '));
        }
        return result.view;
      },
    };
  }

  onChange(listener: (config: DeskhandConfig) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The settings page: schema, values in effect, and per profile whether a key is set (never the key). */
  async settingsView(): Promise<SettingsView> {
    const secrets: SettingsView['secrets'] = {};
    for (const profile of MODEL_PROFILES) {
      const status = await this.options.secrets.status(profile);
      secrets[profile] = { set: status.set, protected: status.protected };
    }
    const notes = [secretStorageNote(this.options.secretStorage)];
    if (this.loadNote) notes.unshift(`Saved settings: ${this.loadNote}.`);
    const schema = settingsSchema();
    return {
      schema: { ...schema, description: notes.join(' ') },
      uischema: {
        type: 'VerticalLayout',
        elements: [
          ...notes.map((text) => ({ type: 'Label', text })),
          ...Object.keys(schema.properties as Json).map((key) => ({ type: 'Control', scope: `#/properties/${key}` })),
        ],
      },
      values: structuredClone(this.current) as Json,
      secrets,
    };
  }

  /**
   * Checks and saves new values (merged over the current ones, so a partial object is fine) and API
   * keys (`secrets`: profile -> key; an empty string removes the saved key). Nothing is saved unless
   * everything is valid; errors name the field and carry the schema's message.
   */
  applySettings(values: Json, secrets: Record<string, string> = {}): Promise<ApplyResult> {
    // One after the other: each starts from what the one before saved. Run side by side, one waiting on the
    // keychain (saving a key) would then save the values it started from over the other's change.
    const result = this.applying.then(() => this.applyNow(values, secrets));
    this.applying = result.catch(() => undefined);
    return result;
  }

  private async applyNow(values: Json, secrets: Record<string, string>): Promise<ApplyResult> {
    const errors: FieldError[] = [];
    const parsed = DeskhandConfig.safeParse(deepMerge(structuredClone(this.current), values));
    if (!parsed.success) errors.push(...fieldErrors(parsed.error));

    const secretEntries = Object.entries(secrets);
    for (const [name, value] of secretEntries) {
      if (!SecretName.safeParse(name).success || !(MODEL_PROFILES as string[]).includes(name)) {
        errors.push({ path: `secrets.${name}`, message: `no model profile is called '${name}' (${MODEL_PROFILES.join(', ')})` });
      } else if (value !== value.trim() || /\s/.test(value)) {
        errors.push({ path: `secrets.${name}`, message: 'an API key has no spaces or line breaks' });
      } else if (value.length > 500) {
        errors.push({ path: `secrets.${name}`, message: 'an API key is at most 500 characters' });
      }
    }
    if (!this.options.secrets.writable && secretEntries.length > 0) {
      errors.push({ path: `secrets.${secretEntries[0]?.[0]}`, message: 'API keys cannot be changed here' });
    }
    if (errors.length > 0 || !parsed.success) return { ok: false, errors };

    for (const [name, value] of secretEntries) {
      try {
        if (value === '') await this.options.secrets.delete(name);
        else await this.options.secrets.set(name, value);
      } catch (error) {
        errors.push({ path: `secrets.${name}`, message: (error as Error).message });
      }
    }
    if (secretEntries.length > 0) await this.reloadKeys();
    if (errors.length > 0) return { ok: false, errors };

    const overrides = overridesOf(this.base as unknown as Json, parsed.data as unknown as Json);
    if (!deepEqual(overrides, this.overrides)) {
      writeJsonAtomic(this.path, overrides);
      this.overrides = overrides;
    }
    const changed = !deepEqual(parsed.data, this.current);
    this.current = parsed.data;
    if (changed) for (const listener of this.listeners) listener(this.current);
    return { ok: true, view: await this.settingsView() };
  }

  /** A file is valid when it is an object whose merge over the environment's config is valid. */
  /**
   * The saved settings, keeping what is valid. A value Deskhand cannot use (out of range, a pattern that
   * is no regular expression) is dropped on its own, so one bad limit does not also drop the approval
   * mode: the file as it was is kept as `.bad`, and the rest is written back. A file that is no JSON
   * object is set aside whole, and defaults are used.
   */
  private readSaved(): { value: Json; problem: string | null; note: string | null } {
    let saved: unknown;
    try {
      saved = existsSync(this.path) ? JSON.parse(readFileSync(this.path, 'utf8')) : {};
    } catch {
      saved = null;
    }
    const setAside = (): { value: Json; problem: string | null; note: string | null } => {
      const read = readValidatedJson(this.path, this.fileSchema());
      return { value: read.value ?? {}, problem: read.problem, note: read.problem };
    };
    if (!isPlainObject(saved)) return setAside();
    const kept = structuredClone(saved);
    const dropped: DroppedValue[] = [];
    for (;;) {
      const parsed = DeskhandConfig.safeParse(deepMerge(this.base, kept));
      if (parsed.success) {
        // A name the schema does not know (a typo, another app's field) would be dropped without a word,
        // and what it was meant to set would quietly stay at its default.
        for (const path of unknownPaths(kept, parsed.data).reverse()) {
          dropAt(kept, path);
          dropped.unshift({ path, why: 'not a setting Deskhand knows' });
        }
        break;
      }
      const issue = parsed.error.issues[0] as z.core.$ZodIssue;
      if (!dropAt(kept, issue.path)) return setAside();
      dropped.push({ path: issue.path, why: issue.message });
    }
    if (dropped.length === 0) return { value: kept, problem: null, note: null };
    // A safety rule that was dropped may be what made "never" safe enough for the user: it goes too.
    const safety = kept.safety;
    if (dropped.some(({ path }) => path[0] === 'safety') && isPlainObject(safety) && safety.confirmation === 'never') {
      delete safety.confirmation;
      if (Object.keys(safety).length === 0) delete kept.safety;
      dropped.push({ path: ['safety', 'confirmation'], why: "'never' is not kept once a safety rule was dropped" });
    }
    // The log names each value by its place in the file; Settings by the labels the dialog shows.
    const inFile = dropped.map(({ path, why }) => `${path.map(String).join('.')}: ${why}`).join('; ');
    const schema = settingsSchema();
    const inWords = dropped.map(({ path, why }) => `${settingLabel(schema, path)}: ${why}`).join('; ');
    const aside = `${this.path}.bad`;
    try {
      // The file as it was is copied aside first: the salvaged one then replaces it in one step.
      copyFileSync(this.path, aside);
      writeJsonAtomic(this.path, kept);
    } catch (error) {
      const why = (error as Error).message;
      return {
        value: kept,
        problem: `${this.path} has values Deskhand cannot use (${inFile}); they are ignored, and the file could not be rewritten: ${why}`,
        note: `some saved values could not be used and are ignored (${inWords}); the settings file could not be rewritten: ${why}`,
      };
    }
    return {
      value: kept,
      problem: `${this.path} had values Deskhand cannot use (${inFile}); those were dropped and the other settings kept (the file as it was is kept as ${aside})`,
      note: `some saved values could not be used and were dropped (${inWords}); the other settings were kept, and the file as it was is kept as ${aside}`,
    };
  }

  private fileSchema(): z.ZodType<Json> {
    return z
      .record(z.string(), z.unknown())
      .superRefine((value, ctx) => {
        const merged = DeskhandConfig.safeParse(deepMerge(this.base, value));
        if (!merged.success) {
          for (const issue of merged.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
        }
      });
  }
}
