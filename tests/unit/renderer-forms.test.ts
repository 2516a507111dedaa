import { Actions, coreReducer, initState, type CoreActions, type JsonFormsCore } from '@jsonforms/core';
import { describe, expect, it } from 'vitest';
import { MAX_FORM_SPEC_BYTES } from '../../src-main/protocol';
import { LocalEdits, valueChanges } from '../../src-renderer/src/forms/changes';
import { AgentFormData } from '../../src-renderer/src/forms/form-data';
import { checkFormSpec } from '../../src-main/protocol/form-spec';
import { safeLinkUrl } from '../../src-renderer/src/forms/links';
import { answerKey, answersInOrder, questionsForm } from '../../src-renderer/src/forms/questions';
import { createFormsAjv } from '../../src-renderer/src/forms/safe-ajv';
import { maskSecretFields } from '../../src-renderer/src/forms/secret-fields';
import { validateAgainstSchema } from '../../src-renderer/src/forms/schema-validator';
import { asFormError, describeErrors, fieldErrorFromMessage, fieldName, refusalText, schemaHasPath } from '../../src-renderer/src/forms/settings-errors';
import { settingsUiSchema, withoutNullAlternatives } from '../../src-renderer/src/forms/settings-schema';

const spec = (schema: Record<string, unknown>, uischema: Record<string, unknown> | null = null, data: Record<string, unknown> = {}) => ({
  schema,
  uischema,
  data,
});

const objectSchema = { type: 'object', properties: { name: { type: 'string' } } };

describe('form spec check (model-written specs are untrusted)', () => {
  it('accepts an object schema with known elements, Button and Markdown included', () => {
    const result = checkFormSpec(
      spec(objectSchema, {
        type: 'VerticalLayout',
        elements: [
          { type: 'Markdown', text: '**Hello**' },
          { type: 'Control', scope: '#/properties/name', label: 'Name' },
          { type: 'Group', label: 'More', elements: [{ type: 'Label', text: 'hi' }] },
          { type: 'Button', label: 'Go', props: { action: 'go' } },
        ],
      }),
    );
    expect(result.ok).toBe(true);
    expect(checkFormSpec(spec(objectSchema)).ok).toBe(true);
  });

  it('refuses a schema that is not an object schema', () => {
    const result = checkFormSpec(spec({ type: 'array' }));
    expect(result).toEqual({ ok: false, problem: expect.stringContaining('must be an object schema') });
    expect(checkFormSpec(spec({ type: 'object', properties: [] })).ok).toBe(false);
  });

  it('refuses a schema JSONForms cannot read: an unknown type, a field that is no schema, an enum or required that is no list', () => {
    const problem = (schema: Record<string, unknown>): string | null => {
      const result = checkFormSpec(spec(schema));
      return result.ok ? null : result.problem;
    };
    expect(problem({ type: 'object', properties: { when: { type: 'moment' } } })).toContain('schema.properties.when.type: "moment" is not a JSON Schema type');
    expect(problem({ type: 'object', properties: { a: { type: ['string', 'date'] } } })).toContain('"date" is not a JSON Schema type');
    expect(problem({ type: 'object', properties: { a: null } })).toContain("schema.properties.a: a field's schema must be an object");
    expect(problem({ type: 'object', properties: { a: true } })).toContain("a field's schema must be an object");
    expect(problem({ type: 'object', properties: { a: { type: 'string', enum: 'red' } } })).toContain('schema.properties.a.enum: must be a list');
    expect(problem({ type: 'object', properties: { a: { type: 'string', enum: [] } } })).toContain('enum: must be a list of at least one value');
    expect(problem({ type: 'object', required: 'a', properties: { a: { type: 'string' } } })).toContain('schema.required: must be a list of field names');
    // Nested fields, array items and alternatives are read the same way.
    expect(problem({ type: 'object', properties: { trip: { type: 'object', properties: { when: { type: 'datetime' } } } } })).toContain('schema.properties.trip.properties.when.type');
    expect(problem({ type: 'object', properties: { list: { type: 'array', items: { type: 'text' } } } })).toContain('schema.properties.list.items.type');
    expect(problem({ type: 'object', properties: { a: { oneOf: [] } } })).toContain('schema.properties.a.oneOf: must be a list of schemas');
    expect(problem({ type: 'object', $defs: { city: { type: 'place' } }, properties: { a: { $ref: '#/$defs/city' } } })).toContain('schema.$defs.city.type');
  });

  it('accepts what JSON Schema allows and JSONForms shows: type lists, boolean sub-schemas, a field named "type", defaults of any shape', () => {
    const ok = (schema: Record<string, unknown>): boolean => checkFormSpec(spec(schema)).ok;
    expect(ok({ type: 'object', properties: { a: { type: ['string', 'null'] } } })).toBe(true);
    expect(ok({ type: 'object', additionalProperties: false, properties: { type: { type: 'string', enum: ['a', 'b'] } } })).toBe(true);
    expect(ok({ type: 'object', properties: { a: { type: 'object', default: { type: 'moment' }, properties: {} } } })).toBe(true);
    expect(ok({ type: 'object', required: ['a'], properties: { a: { type: 'array', items: { type: 'string' } }, b: { anyOf: [{ type: 'string' }, { type: 'integer' }] } } })).toBe(true);
  });

  it('refuses unknown element types anywhere in the layout', () => {
    const result = checkFormSpec(
      spec(objectSchema, { type: 'VerticalLayout', elements: [{ type: 'Group', elements: [{ type: 'Iframe', src: 'https://x' }] }] }),
    );
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem).toContain('uischema.elements.0.elements.0: element type "Iframe" is not one Deskhand shows');
    expect(checkFormSpec(spec(objectSchema, { elements: [] })).ok).toBe(false);
  });

  it('refuses Buttons without an action and Controls whose scope is not inside the schema', () => {
    const noAction = checkFormSpec(spec(objectSchema, { type: 'Button', label: 'Go', props: {} }));
    expect(noAction.ok).toBe(false);
    if (!noAction.ok) expect(noAction.problem).toContain('props.action');
    const badScope = checkFormSpec(spec(objectSchema, { type: 'Control', scope: 'https://evil.example/#/x' }));
    expect(badScope.ok).toBe(false);
  });

  it('refuses $ref to anything outside the spec, and local refs that lead nowhere', () => {
    const remote = checkFormSpec(spec({ type: 'object', properties: { a: { $ref: 'https://evil.example/s.json' } } }));
    expect(remote.ok).toBe(false);
    if (!remote.ok) expect(remote.problem).toContain('points outside the form');
    expect(checkFormSpec(spec({ type: 'object', properties: { a: { $ref: '//evil.example/s.json#' } } })).ok).toBe(false);
    expect(checkFormSpec(spec({ type: 'object', properties: { a: { $ref: '#/definitions/missing' } } })).ok).toBe(false);
    const local = spec({ type: 'object', definitions: { name: { type: 'string' } }, properties: { a: { $ref: '#/definitions/name' } } });
    expect(checkFormSpec(local).ok).toBe(true);
    const ruleRef = checkFormSpec(
      spec(objectSchema, {
        type: 'Control',
        scope: '#/properties/name',
        rule: { effect: 'HIDE', condition: { scope: '#', schema: { $ref: 'http://evil.example/c.json' } } },
      }),
    );
    expect(ruleRef.ok).toBe(false);
  });

  it('a $ref with a broken %-escape is a problem to show, not an exception that breaks the page', () => {
    const broken = spec({ type: 'object', properties: { a: { $ref: '#/properties/%E0%A4%A' } } });
    const result = checkFormSpec(broken);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem).toContain('is not in the schema');
    expect(validateAgainstSchema(broken.schema, { a: 'x' })).toMatchObject([{ keyword: '$ref' }]);
  });

  it('refuses patterns that backtrack catastrophically: the UI tests each keystroke against them', () => {
    const field = (pattern: string) => spec({ type: 'object', properties: { code: { type: 'string', pattern } } });
    for (const pattern of ['^(a+)+$', '(x*y?)*z', '^(\\w+\\s?){2,}$', '((ab)*c)+', '(.*a){20}']) {
      const result = checkFormSpec(field(pattern));
      expect(result.ok, pattern).toBe(false);
      if (!result.ok) expect(result.problem).toMatch(/schema\.properties\.code: the pattern .* may take too long/);
    }
    const keys = checkFormSpec(spec({ type: 'object', patternProperties: { '^(a|b+)+$': { type: 'string' } } }));
    expect(keys.ok).toBe(false);
    for (const pattern of ['^[a-z]+$', '^\\d{4}-\\d{2}$', '^(https?)://\\S+$', '(ab)?c+', '[(a+)+]', '\\(a+\\)+']) {
      expect(checkFormSpec(field(pattern)).ok, pattern).toBe(true);
    }
  });

  it('refuses $refs that loop or fan out, which the validator and JSONForms would follow without end', () => {
    const loop = checkFormSpec(spec({ type: 'object', allOf: [{ $ref: '#' }, { $ref: '#' }] }));
    expect(loop.ok).toBe(false);
    if (!loop.ok) expect(loop.problem).toMatch(/references loop or expand/);
    const recursive = { type: 'object', definitions: { node: { type: 'object', properties: { next: { $ref: '#/definitions/node' } } } }, properties: { root: { $ref: '#/definitions/node' } } };
    expect(checkFormSpec(spec(recursive)).ok).toBe(false);
    const definitions: Record<string, unknown> = { d30: { type: 'string' } };
    for (let i = 29; i >= 0; i -= 1) definitions[`d${i}`] = { allOf: [{ $ref: `#/definitions/d${i + 1}` }, { $ref: `#/definitions/d${i + 1}` }] };
    expect(checkFormSpec(spec({ type: 'object', definitions, properties: { a: { $ref: '#/definitions/d0' } } })).ok).toBe(false);
    const condition = { scope: '#/properties/name', schema: { allOf: [{ $ref: '#' }, { $ref: '#' }] } };
    expect(checkFormSpec(spec(objectSchema, { type: 'Control', scope: '#/properties/name', rule: { effect: 'HIDE', condition } })).ok).toBe(false);
  });

  it('refuses specs larger than the cap, and absurd nesting', () => {
    const big = checkFormSpec(spec(objectSchema, null, { text: 'x'.repeat(MAX_FORM_SPEC_BYTES) }));
    expect(big.ok).toBe(false);
    if (!big.ok) expect(big.problem).toMatch(/too large/);
    let deep: Record<string, unknown> = { type: 'Label', text: 'bottom' };
    for (let i = 0; i < 40; i += 1) deep = { type: 'VerticalLayout', elements: [deep] };
    expect(checkFormSpec(spec(objectSchema, deep)).ok).toBe(false);
  });
});

describe('secret fields', () => {
  const schema = {
    type: 'object',
    properties: { user: { type: 'string' }, pass: { type: 'string', format: 'password' }, token: { type: 'string', writeOnly: true } },
  };
  const formats = (uischema: Record<string, unknown>) =>
    (uischema.elements as Array<{ scope: string; options?: { format?: string } }>).map((element) => [element.scope, element.options?.format ?? null]);

  it('a field the schema marks secret is shown as a password box, in the agent\'s UI schema or in the generated one', () => {
    const expected = [['#/properties/user', null], ['#/properties/pass', 'password'], ['#/properties/token', 'password']];
    expect(formats(maskSecretFields(schema, undefined))).toEqual(expected);
    const uischema = { type: 'VerticalLayout', elements: ['user', 'pass', 'token'].map((name) => ({ type: 'Control', scope: `#/properties/${name}`, options: { focus: true } })) };
    expect(formats(maskSecretFields(schema, uischema))).toEqual(expected);
    expect(maskSecretFields(schema, uischema).elements).toMatchObject([{ options: { focus: true } }, { options: { focus: true } }, { options: { focus: true } }]);
  });

  it('a secret field reached through $refs is one too', () => {
    const withRefs = {
      type: 'object',
      definitions: { secret: { type: 'string', format: 'password' }, alias: { $ref: '#/definitions/secret' }, plain: { type: 'string' } },
      properties: { pass: { $ref: '#/definitions/alias' }, name: { $ref: '#/definitions/plain' } },
    };
    expect(formats(maskSecretFields(withRefs, undefined))).toEqual([['#/properties/pass', 'password'], ['#/properties/name', null]]);
  });
});

describe('schema validator (the CSP forbids Ajv’s generated code)', () => {
  const schema = {
    type: 'object',
    required: ['name', 'port'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 5 },
      port: { type: 'integer', minimum: 1, maximum: 65535 },
      url: { type: 'string', format: 'uri' },
      mode: { enum: ['a', 'b'] },
      tags: { type: 'array', items: { type: 'string', pattern: '^[a-z]+$' }, maxItems: 2, uniqueItems: true },
      profile: { anyOf: [{ type: 'object', properties: { model: { type: 'string', minLength: 1 } }, required: ['model'] }, { type: 'null' }] },
    },
    additionalProperties: false,
  };

  it('accepts valid data', () => {
    expect(validateAgainstSchema(schema, { name: 'ok', port: 80, url: 'https://x.org', mode: 'a', tags: ['a', 'b'], profile: null })).toEqual([]);
    expect(validateAgainstSchema(schema, { name: 'ok', port: 80, profile: { model: 'gpt' } })).toEqual([]);
  });

  it('reports each problem at its path, with words people understand', () => {
    const errors = validateAgainstSchema(schema, { name: 'too long', port: 70000.5, url: 'not a url', mode: 'c', tags: ['A', 'A', 'b'], extra: 1 });
    const at = (path: string) => errors.filter((e) => e.instancePath === path).map((e) => `${e.keyword}: ${e.message}`);
    expect(at('/name')).toEqual(['maxLength: must be at most 5 characters']);
    expect(at('/port')).toEqual(['type: must be a whole number']);
    expect(at('/url')).toEqual(['format: must be a URL']);
    expect(at('/mode')).toEqual(['enum: must be one of: "a", "b"']);
    expect(at('/tags')).toContain('maxItems: must have at most 2 items');
    expect(at('/tags/0')).toEqual(['pattern: must match the pattern ^[a-z]+$']);
    expect(at('')).toEqual(['additionalProperties: must not have the field extra']);
  });

  it('reports missing required fields the way JSONForms places them (params.missingProperty)', () => {
    const errors = validateAgainstSchema(schema, { name: 'x' });
    expect(errors).toEqual([expect.objectContaining({ keyword: 'required', instancePath: '', params: { missingProperty: 'port' } })]);
  });

  it('for anyOf reports the branch that came closest (a nullable object shows its field problem)', () => {
    const errors = validateAgainstSchema(schema, { name: 'x', port: 1, profile: { model: '' } });
    expect(errors.map((e) => `${e.instancePath} ${e.keyword}`)).toEqual(['/profile/model minLength', '/profile anyOf']);
  });

  it('follows local $refs, survives cycles and bad patterns', () => {
    const recursive = { definitions: { node: { type: 'object', properties: { next: { $ref: '#/definitions/node' }, n: { type: 'number' } } } }, $ref: '#/definitions/node' };
    expect(validateAgainstSchema(recursive, { n: 1, next: { n: 2, next: { n: 'x' } } }).map((e) => e.instancePath)).toEqual(['/next/next/n']);
    expect(validateAgainstSchema({ type: 'string', pattern: '(' }, 'anything')).toEqual([]);
    const loop = { $ref: '#' };
    expect(validateAgainstSchema(loop, 1).some((e) => e.keyword === 'depth')).toBe(true);
  });

  it('honours errorMessage for the schema’s own words', () => {
    const errors = validateAgainstSchema({ type: 'string', pattern: '^v', errorMessage: 'a version starts with v' }, '1.0');
    expect(errors[0]?.message).toBe('a version starts with v');
  });

  it('works as the Ajv JSONForms expects: compile() with errors, validate() for rule conditions', () => {
    const ajv = createFormsAjv();
    const validate = ajv.compile({ type: 'object', required: ['a'] });
    expect(validate({})).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({ keyword: 'required', params: { missingProperty: 'a' } });
    expect(validate({ a: 1 })).toBe(true);
    expect(validate.errors).toBeNull();
    expect(ajv.validate({ const: 'yes' }, 'yes')).toBe(true);
    expect(ajv.validate({ const: 'yes' }, 'no')).toBe(false);
  });

  it('can check data against another schema than the one shown (settings: nullable fields shown plain)', () => {
    const real = { type: 'object', properties: { host: { anyOf: [{ type: 'object' }, { type: 'null' }] } } };
    const shown = withoutNullAlternatives(real) as Record<string, unknown>;
    const ajv = createFormsAjv(new Map([[shown, real]]));
    expect(ajv.compile(shown)({ host: null })).toBe(true);
    expect(createFormsAjv().compile(shown)({ host: null })).toBe(false);
  });
});

describe('questions form', () => {
  it('has one required text field per question, labelled with it, in order', () => {
    const { schema, uischema } = questionsForm(['Which folder?', 'Which names?']);
    expect(schema.required).toEqual([answerKey(0), answerKey(1)]);
    expect((schema.properties as Record<string, { title: string }>)[answerKey(1)]?.title).toBe('Which names?');
    expect((uischema.elements as Array<{ label: string }>).map((e) => e.label)).toEqual(['Which folder?', 'Which names?']);
    expect(checkFormSpec({ schema, uischema, data: {} }).ok).toBe(true);
  });

  it('answers in question order, or null while one is empty', () => {
    const questions = ['A?', 'B?'];
    expect(answersInOrder(questions, { [answerKey(1)]: 'b', [answerKey(0)]: ' a ' })).toEqual(['a', 'b']);
    expect(answersInOrder(questions, { [answerKey(0)]: 'a', [answerKey(1)]: '   ' })).toBeNull();
    expect(answersInOrder(questions, {})).toBeNull();
  });
});

describe('form value changes', () => {
  it('reports leaf changes at dotted paths; lists are one value; removed fields become null', () => {
    expect(valueChanges({ a: 1, b: { c: 'x', d: 1 }, e: [1] }, { a: 1, b: { c: 'y', d: 1 }, e: [1, 2] })).toEqual([
      { path: 'b.c', value: 'y' },
      { path: 'e', value: [1, 2] },
    ]);
    expect(valueChanges({ a: 'x' }, {})).toEqual([{ path: 'a', value: null }]);
    expect(valueChanges({ a: 1 }, { a: 1 })).toEqual([]);
    expect(valueChanges({}, { addr: { street: 'Main' } })).toEqual([{ path: 'addr.street', value: 'Main' }]);
  });
});

describe('settings helpers', () => {
  const schema = {
    type: 'object',
    properties: {
      models: { type: 'object', properties: { host: { anyOf: [{ type: 'object', properties: { model: { type: 'string' } } }, { type: 'null' }] } } },
      limits: { type: 'object', properties: { maxStepsPerRound: { type: 'integer' } } },
      safety: { type: 'object', properties: { patterns: { type: 'array', items: { type: 'string' } } } },
    },
  };

  it('finds the field a host refusal names, whatever the prefix', () => {
    expect(fieldErrorFromMessage('invalid command: values.limits.maxStepsPerRound: Too big: expected number to be <=1000', schema)).toEqual({
      path: 'limits.maxStepsPerRound',
      message: 'Too big: expected number to be <=1000',
    });
    expect(fieldErrorFromMessage("invalid settings: models.host.model: no model named 'x'", schema)).toEqual({
      path: 'models.host.model',
      message: "no model named 'x'",
    });
    expect(fieldErrorFromMessage('safety.patterns.0: not a valid regular expression', schema)?.path).toBe('safety.patterns.0');
    expect(fieldErrorFromMessage('the settings file is locked', schema)).toBeNull();
    expect(schemaHasPath(schema, 'limits.nope')).toBe(false);
    expect(asFormError({ path: 'limits.maxStepsPerRound', message: 'too big' }).instancePath).toBe('/limits/maxStepsPerRound');
  });

  const titled = {
    type: 'object',
    properties: {
      models: {
        title: 'Models',
        type: 'object',
        properties: { host: { title: 'Host', anyOf: [{ type: 'object', properties: { model: { title: 'Model', type: 'string' } } }, { type: 'null' }] } },
      },
      limits: { title: 'Limits', type: 'object', properties: { maxStepsPerRound: { title: 'Max steps per round', type: 'integer', maximum: 1000 } } },
      mcpServers: {
        title: 'MCP servers',
        type: 'array',
        items: { oneOf: [{ title: 'Program', properties: { command: { title: 'Command' } } }, { title: 'Server at a URL', properties: { url: { title: 'URL' } } }] },
      },
    },
  };

  it('shows nullable sections as plain objects, and makes one tab per section, named by the host’s titles', () => {
    const shown = withoutNullAlternatives(schema) as typeof schema;
    expect(shown.properties.models.properties.host).toEqual({ type: 'object', properties: { model: { type: 'string' } } });
    expect(withoutNullAlternatives({ type: ['string', 'null'] })).toEqual({ type: 'string' });
    const ui = settingsUiSchema(shown);
    expect(ui?.type).toBe('Categorization');
    expect((ui?.elements as Array<{ label: string }>).map((c) => c.label)).toEqual(['models', 'limits', 'safety']);
    const titledUi = settingsUiSchema(withoutNullAlternatives(titled) as typeof titled);
    expect((titledUi?.elements as Array<{ label: string }>).map((c) => c.label)).toEqual(['Models', 'Limits', 'MCP servers']);
    expect(settingsUiSchema({ type: 'object', properties: { only: {} } })).toBeUndefined();
  });

  it('names a field as the dialog labels it: its tab, its group and its own title, not its config path', () => {
    expect(fieldName(titled, 'limits.maxStepsPerRound')).toBe('Limits › Max steps per round');
    expect(fieldName(titled, 'models.host.model')).toBe('Models › Host › Model');
    expect(fieldName(titled, 'mcpServers.1.url')).toBe('MCP servers › item 2 › URL');
    // A field without a title keeps its name; a path the schema does not have stays as it is.
    expect(fieldName({ type: 'object', properties: { limits: { title: 'Limits', properties: { other: {} } } } }, 'limits.other')).toBe('Limits › other');
    expect(fieldName(titled, 'limits.nope')).toBe('limits.nope');
  });

  it('says what the dialog refused by the fields’ names, its own checks and the host’s alike', () => {
    expect(describeErrors([{ instancePath: '/limits/maxStepsPerRound', keyword: 'maximum', message: 'must be at most 1000', params: {}, schemaPath: '' }], titled)).toBe(
      'Limits › Max steps per round: must be at most 1000',
    );
    expect(describeErrors([{ instancePath: '/models/host', keyword: 'required', message: 'is required', params: { missingProperty: 'model' }, schemaPath: '' }], titled)).toBe(
      'Models › Host › Model: is required',
    );
    expect(describeErrors([{ instancePath: '', keyword: 'type', message: 'must be an object', params: {}, schemaPath: '' }], titled)).toBe('Settings: must be an object');
    const refused = fieldErrorFromMessage("invalid command: values.models.host.model: the endpoint has no model named 'qwen9'", titled);
    expect(refused && refusalText(refused, titled)).toBe("Models › Host › Model: the endpoint has no model named 'qwen9'");
  });
});

describe('markdown links', () => {
  it('keeps only http(s) links', () => {
    expect(safeLinkUrl('https://example.com/a?b=1')).toBe('https://example.com/a?b=1');
    expect(safeLinkUrl('http://example.com')).toBe('http://example.com/');
    expect(safeLinkUrl('javascript:alert(1)')).toBe('');
    expect(safeLinkUrl('data:text/html,<script>')).toBe('');
    expect(safeLinkUrl('file:///etc/passwd')).toBe('');
    expect(safeLinkUrl('/relative')).toBe('');
  });
});

describe('agent form edits not yet in the host data', () => {
  it('keeps unsent edits on top of data the agent sends meanwhile', () => {
    const edits = new LocalEdits();
    edits.edit('city', 'Lisbon');
    edits.edit('address.street', 'Rua Augusta');
    expect(edits.merge({ nights: 5, address: { zip: '1100' } })).toEqual({
      nights: 5,
      city: 'Lisbon',
      address: { zip: '1100', street: 'Rua Augusta' },
    });
  });

  it('an echo of an older edit does not undo a newer one, sent or not', () => {
    const edits = new LocalEdits();
    edits.edit('city', 'Lis');
    expect(edits.takePending()).toEqual([{ path: 'city', value: 'Lis' }]);
    edits.edit('city', 'Lisbon');
    edits.takePending();
    edits.edit('nights', 3);
    // The host echoes the first edit: the newer text and the unsent number stay.
    expect(edits.merge({ city: 'Lis', nights: 1 })).toEqual({ city: 'Lisbon', nights: 3 });
    // Once the host's data shows the edit, it is done with: the agent's later change wins.
    expect(edits.merge({ city: 'Lisbon', nights: 1 })).toEqual({ city: 'Lisbon', nights: 3 });
    edits.takePending();
    edits.settled({ path: 'nights', value: 3 });
    expect(edits.merge({ city: 'Porto', nights: 2 })).toEqual({ city: 'Porto', nights: 2 });
  });

  it('a cleared form (closed) keeps none of its edits', () => {
    const edits = new LocalEdits();
    edits.edit('city', 'Lisbon');
    edits.clear();
    expect(edits.merge({ city: 'Porto' })).toEqual({ city: 'Porto' });
  });
});

describe('agent form data between the host and JSONForms', () => {
  const schema = { type: 'object', properties: { nights: { type: 'integer' }, breakfast: { type: 'boolean' } } };

  /** JSONForms' own state as its provider keeps it, every action going through the form's middleware. */
  function jsonForms(formData: AgentFormData, data: Record<string, unknown>) {
    let core: JsonFormsCore = initState;
    const dispatch = (action: CoreActions): void => {
      core = formData.middleware(core, action, coreReducer);
    };
    dispatch(Actions.init(data, schema, undefined, createFormsAjv()));
    return { dispatch, data: () => core.data as Record<string, unknown> };
  }

  it('keeps a box ticked just before the agent’s update, which waits for JSONForms to pass the tick on', () => {
    const formData = new AgentFormData({ nights: 1 });
    const form = jsonForms(formData, { nights: 1 });
    // The click: JSONForms changes its state at once, and calls onChange 10 ms later.
    form.dispatch(Actions.update('breakfast', () => true));
    // The agent's update lands in those 10 ms. Its new copy of the schema reaches JSONForms with the
    // data prop, which has no tick yet; its data, given to JSONForms now, would have none either.
    form.dispatch(Actions.updateCore({ nights: 1 }, { ...schema }));
    expect(form.data()).toEqual({ nights: 1, breakfast: true });
    expect(formData.fromHost({ nights: 2 })).toBeNull();
    const { changes, show } = formData.fromForm(form.data(), true);
    expect(changes).toEqual([{ path: 'breakfast', value: true }]);
    expect(show).toEqual({ nights: 2, breakfast: true });
    expect(formData.edits.takePending()).toEqual([{ path: 'breakfast', value: true }]);
    // Passed on: the data given to JSONForms is the truth again.
    form.dispatch(Actions.updateCore({ nights: 2, breakfast: true }, schema));
    expect(form.data()).toEqual({ nights: 2, breakfast: true });
  });

  it('shows the agent’s update at once when JSONForms holds nothing, and ignores an echo of what is shown', () => {
    const formData = new AgentFormData({ nights: 1 });
    const form = jsonForms(formData, { nights: 1 });
    form.dispatch(Actions.update('breakfast', () => true));
    expect(formData.fromForm(form.data(), true).show).toBeNull();
    // Not sent yet: the edit stays on top of the agent's data.
    expect(formData.fromHost({ nights: 2 })).toEqual({ nights: 2, breakfast: true });
    expect(formData.fromHost({ nights: 2 })).toBeNull();
    expect(formData.fromHost({ nights: 1 })).toEqual({ nights: 1, breakfast: true });
  });

  it('a closed form takes no edits, and still shows the host’s data that waited', () => {
    const formData = new AgentFormData({ nights: 1 });
    const form = jsonForms(formData, { nights: 1 });
    form.dispatch(Actions.update('breakfast', () => true));
    expect(formData.fromHost({ nights: 3 })).toBeNull();
    expect(formData.fromForm(form.data(), false)).toEqual({ changes: [], show: { nights: 3 } });
    expect(formData.edits.takePending()).toEqual([]);
  });
});
