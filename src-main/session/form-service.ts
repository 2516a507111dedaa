import { z } from 'zod';
import type { InteractionStore } from '../memory/interaction-store';
import { MAX_FORM_SPEC_BYTES, type FormView, type HostEvent } from '../protocol';
import { checkFormSpec, isSecretField, resolveLocalRef } from '../protocol/form-spec';
import type { FormService, FormSubmission } from '../agents/runtime';
import { CommandError } from './command-error';
import { InteractionCancelled } from './interaction-broker';

/** What a model may put in `Form`: a JSON Schema object and a UI schema; checked before anyone sees it. */
const FormSpec = z.object({
  schema: z.record(z.string(), z.unknown()).refine((schema) => schema.type === 'object', 'the form schema must be of type object'),
  uischema: z.record(z.string(), z.unknown()).optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});

const UNSAFE_KEYS = new Set(['__proto__', 'prototype', 'constructor']);
const ARRAY_INDEX = /^(0|[1-9]\d*)$/;

/**
 * Sets a value at a JSONForms path ("a.b.0.c" or "/a/b"), refusing prototype keys. In an array only an
 * item that is there, or the one after the last (an append): one event setting `length` or a far index
 * would make an array of millions of holes, and block the host while it is copied and measured.
 */
export function setAtPath(data: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const keys = path.replace(/^#?\//, '').split(/[./]/).filter(Boolean);
  if (!keys.length) throw new CommandError('bad_message', 'the form event has no path');
  if (keys.some((key) => UNSAFE_KEYS.has(key))) throw new CommandError('bad_message', `refused form path '${path}'`);
  const root: Record<string, unknown> = structuredClone(data);
  let node: Record<string, unknown> = root;
  keys.forEach((key, depth) => {
    if (Array.isArray(node) && (!ARRAY_INDEX.test(key) || Number(key) > node.length)) {
      throw new CommandError('bad_message', `refused form path '${path}': '${key}' is not an item of a list of ${node.length}`);
    }
    if (depth === keys.length - 1) {
      node[key] = value;
      return;
    }
    const next = node[key];
    node[key] = next && typeof next === 'object' ? next : {};
    node = node[key] as Record<string, unknown>;
  });
  return root;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A path into a form's data; EACH stands for every item of a list. */
const EACH = Symbol('each item');
type SecretPath = Array<string | typeof EACH>;

/** A schema node with its local `$ref` followed: the field a `$ref` names is the one JSONForms shows. */
function followRef(root: unknown, node: unknown): unknown {
  return isRecord(node) && typeof node.$ref === 'string' ? resolveLocalRef(root, node.$ref) : node;
}

/** The data paths of the fields a schema marks secret (`format: "password"` or `writeOnly`), lists' items included. */
function secretSchemaPaths(root: unknown, schema: unknown, prefix: SecretPath, depth = 0): SecretPath[] {
  const node = followRef(root, schema);
  if (!isRecord(node) || depth > 64) return [];
  const field = (child: unknown, path: SecretPath): SecretPath[] =>
    isSecretField(followRef(root, child)) ? [path] : secretSchemaPaths(root, child, path, depth + 1);
  const properties = isRecord(node.properties) ? Object.entries(node.properties).flatMap(([key, child]) => field(child, [...prefix, key])) : [];
  return isRecord(node.items) ? [...properties, ...field(node.items, [...prefix, EACH])] : properties;
}

/** The data paths of the Controls a UI schema shows as password boxes (`options.format: "password"`). */
function secretControlPaths(element: unknown, depth = 0): SecretPath[] {
  if (!isRecord(element) || depth > 64) return [];
  const children = Array.isArray(element.elements) ? element.elements.flatMap((child) => secretControlPaths(child, depth + 1)) : [];
  const password = element.type === 'Control' && isRecord(element.options) && element.options.format === 'password';
  if (!password || typeof element.scope !== 'string') return children;
  // "#/properties/a/items/properties/b": the keys after each "properties", and every item for "items".
  return [...children, scopePath(element.scope.replace(/^#\/?/, '').split('/'))];
}

function scopePath(segments: string[]): SecretPath {
  const [keyword, key, ...rest] = segments;
  if (keyword === 'properties' && key) return [key, ...scopePath(rest)];
  if (keyword === 'items') return [EACH, ...scopePath(segments.slice(1))];
  return [];
}

/** Where `path` is in `data`: each parent holding a secret and its key, an item of a list by its index. */
function secretsAt(data: unknown, path: SecretPath): Array<{ parent: Record<string, unknown> | unknown[]; key: string }> {
  const [head, ...rest] = path;
  if (head === undefined) return [];
  const keys = head === EACH ? (Array.isArray(data) ? data.map((_, index) => String(index)) : []) : isRecord(data) && head in data ? [head] : [];
  return keys.flatMap((key) => {
    const parent = data as Record<string, unknown> | unknown[];
    return rest.length === 0 ? [{ parent, key }] : secretsAt((parent as Record<string, unknown>)[key], rest);
  });
}

/** What stands in a kept copy for what the user typed into a password field. */
export const SECRET_NOT_KEPT = '[typed into a password field: not kept]';

type Mask = (parent: Record<string, unknown> | unknown[], key: string) => void;

/** The secret fields of `form`, each once by its written-out path (a field both the schema and a Control mark is one). */
function secretFields(form: Pick<FormView, 'schema' | 'uischema'>): Map<string, SecretPath> {
  const all = [...secretSchemaPaths(form.schema, form.schema, []), ...secretControlPaths(form.uischema)];
  return new Map(all.map((path) => [path.map((key) => (key === EACH ? '*' : JSON.stringify(key))).join('/'), path]));
}

/** `data` with each secret field of `form` handed to `mask` (its parent and key), on a copy. */
function maskedSecrets(form: FormView, data: Record<string, unknown>, mask: Mask): Record<string, unknown> {
  const paths = [...secretFields(form).values()];
  if (!paths.length) return data;
  const copy = structuredClone(data);
  for (const { parent, key } of paths.flatMap((path) => secretsAt(copy, path))) mask(parent, key);
  return copy;
}

/**
 * What an update of a form that brings no data of its own carries over from the version before: all
 * of it, unless a field that version hid is not hidden any more, in which case what was typed into
 * the hidden fields is left behind (shown, and stored, in clear it would no longer be a secret).
 */
function carriedData(before: FormView, next: Pick<FormView, 'schema' | 'uischema'>): Record<string, unknown> {
  const stillHidden = secretFields(next);
  return [...secretFields(before).keys()].every((field) => stillHidden.has(field)) ? before.data : withoutSecrets(before).data;
}

/**
 * The form as it is stored: without what the user typed into password fields. The agent gets those
 * values from memory when a button is pressed; the database (and so exports) never holds them.
 */
function withoutSecrets(form: FormView): FormView {
  return {
    ...form,
    data: maskedSecrets(form, form.data, (parent, key) => {
      // A list's item is emptied, not removed: the items after it keep their places, which edits name.
      if (Array.isArray(parent)) parent[Number(key)] = '';
      else delete parent[key];
    }),
  };
}

/**
 * A pressed button, with the form's data, a copy of it to keep (the passwords in it marked as not
 * kept), and the passwords themselves, so that they can be kept out of everything stored from now on.
 */
function submitted(form: FormView, action: string): { submission: FormSubmission; secrets: string[] } {
  const secrets: string[] = [];
  const kept = maskedSecrets(form, form.data, (parent, key) => {
    const holder = parent as Record<string, unknown>;
    if (typeof holder[key] === 'string') secrets.push(holder[key]);
    holder[key] = SECRET_NOT_KEPT;
  });
  return { submission: { action, data: form.data, kept }, secrets };
}

/** Measured as the UI measures it before showing a form (schema, uischema and data, as JSON). */
function formBytes(form: Pick<FormView, 'schema' | 'uischema' | 'data'>): number {
  return Buffer.byteLength(JSON.stringify({ schema: form.schema, uischema: form.uischema, data: form.data }), 'utf8');
}

function kilobytes(bytes: number): string {
  return `${Math.ceil(bytes / 1024)} KB`;
}

interface Waiter {
  resolve(result: FormSubmission): void;
}

/** The blue-style agent forms of one session: create, update, close, and the user's events back. */
export class SessionForms implements FormService {
  private readonly byAgent = new Map<string, FormView>();
  private readonly waiters = new Map<string, Waiter>();
  /** Buttons pressed before the agent waited on their form, by form id. */
  private readonly pressed = new Map<string, { action: string }>();
  private counter = 0;

  constructor(
    private readonly sessionId: string,
    private readonly store: InteractionStore,
    private readonly emit: (event: HostEvent) => void,
    /** Told each password the user submits (the step records, audit and logs then leave it out). */
    private readonly rememberSecret: (value: string) => void = () => undefined,
  ) {
    for (const form of store.forms(sessionId)) if (form.state === 'open') this.byAgent.set(form.agent, form);
  }

  open(agent: string, spec: unknown): FormView {
    const size = Buffer.byteLength(JSON.stringify(spec ?? null), 'utf8');
    if (size > MAX_FORM_SPEC_BYTES) throw new Error(`the form spec is ${size} bytes; at most ${MAX_FORM_SPEC_BYTES} are accepted`);
    const parsed = FormSpec.safeParse(spec);
    if (!parsed.success) throw new Error(`invalid form spec: ${parsed.error.issues[0]?.message ?? 'unknown problem'}`);
    const existing = this.byAgent.get(agent);
    const asked: FormView = {
      formId: existing?.formId ?? `${agent.toLowerCase()}-${Date.now().toString(36)}-${++this.counter}`,
      sessionId: this.sessionId,
      agent,
      schema: parsed.data.schema,
      uischema: parsed.data.uischema ?? null,
      data: parsed.data.data ?? existing?.data ?? {},
      state: 'open',
    };
    const bytes = formBytes(asked);
    if (bytes > MAX_FORM_SPEC_BYTES) throw new Error(`the form is ${bytes} bytes with its data; at most ${MAX_FORM_SPEC_BYTES} are accepted`);
    // The UI's own check: a form it would not show has no buttons, and the agent would wait on it for ever.
    // It comes first: the look for secret fields follows $refs, through a loop for ever before this refuses it.
    const check = checkFormSpec(asked);
    if (!check.ok) throw new Error(`invalid form spec: ${check.problem}`);
    const form = parsed.data.data === undefined && existing ? { ...asked, data: carriedData(existing, asked) } : asked;
    // A press on what the form was before this update does not answer what it asks now.
    this.pressed.delete(form.formId);
    this.save(form);
    return form;
  }

  close(agent: string): void {
    const form = this.byAgent.get(agent);
    if (!form) return;
    this.byAgent.delete(agent);
    this.pressed.delete(form.formId);
    this.save({ ...form, state: 'closed' });
  }

  /** The round is over (or was cut off): no agent is left to read its forms. */
  closeAll(): void {
    for (const agent of [...this.byAgent.keys()]) this.close(agent);
  }

  waitForAction(agent: string, signal: AbortSignal): Promise<FormSubmission> {
    const form = this.byAgent.get(agent);
    if (!form) return Promise.reject(new Error(`${agent} has no open form to wait on`));
    const pressed = this.pressed.get(form.formId);
    if (pressed) {
      this.pressed.delete(form.formId);
      // With the data as it is now: edits made after the press count too.
      return Promise.resolve(this.submission(form, pressed.action));
    }
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.waiters.delete(form.formId);
        reject(new InteractionCancelled());
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.set(form.formId, {
        resolve: (result) => {
          signal.removeEventListener('abort', onAbort);
          resolve(result);
        },
      });
    });
  }

  /** Whether an agent waits for a button of one of these forms to be pressed. */
  get awaited(): boolean {
    return this.waiters.size > 0;
  }

  /** A user's change (path/value) or button press (action) from the UI. */
  handleEvent(formId: string, path: string, value: unknown, action: string | null): void {
    const form = [...this.byAgent.values()].find((candidate) => candidate.formId === formId);
    if (!form) throw new CommandError('conflict', 'that form is closed or unknown');
    let current = form;
    if (path) {
      current = { ...form, data: setAtPath(form.data, path, value) };
      // A form the UI refuses to show has no buttons left, and the agent would wait on it for ever.
      const bytes = formBytes(current);
      if (bytes > MAX_FORM_SPEC_BYTES) {
        throw new CommandError(
          'bad_message',
          `that value is too large: the form would be ${kilobytes(bytes)}, and at most ${kilobytes(MAX_FORM_SPEC_BYTES)} can be shown; the change was not saved`,
        );
      }
      this.save(current);
    }
    if (action) {
      const waiter = this.waiters.get(formId);
      this.waiters.delete(formId);
      // Pressed before the agent got round to waiting on it: kept for when it does (the latest press wins).
      if (waiter) waiter.resolve(this.submission(current, action));
      else this.pressed.set(formId, { action });
    }
  }

  all(): FormView[] {
    return this.store.forms(this.sessionId);
  }

  private submission(form: FormView, action: string): FormSubmission {
    const { submission, secrets } = submitted(form, action);
    for (const secret of secrets) this.rememberSecret(secret);
    return submission;
  }

  private save(form: FormView): void {
    if (form.state === 'open') this.byAgent.set(form.agent, form);
    this.store.saveForm(withoutSecrets(form));
    this.emit({ kind: 'form.updated', form });
  }
}
