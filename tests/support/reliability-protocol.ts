import type { Random } from './reliability-random';

/**
 * Random or malformed protocol messages (UI -> host), each one that the host must answer with an error
 * reply: not JSON, not an object, unknown types, bad ids, missing or mistyped fields, unknown fields,
 * ids of sessions that do not exist. None of them is a valid command that could start or change anything.
 */
export interface BadMessage {
  category: string;
  text: string;
}

const TYPES = [
  'session.start',
  'session.continue',
  'session.stop',
  'session.pause',
  'session.resume',
  'session.list',
  'session.open',
  'session.delete',
  'session.rename',
  'session.export',
  'step.detail',
  'blackboard.get',
  'interaction.answer',
  'interaction.decide',
  'form.event',
  'settings.get',
  'settings.set',
  'servers.status',
  'servers.check',
] as const;

/** A well-formed id of a session (or step, interaction, form) that does not exist. */
function ghostId(random: Random): string {
  return random.pick([`ghost-${random.int(0, 1e9)}`, '00000000-0000-0000-0000-000000000000', random.chars(random.int(1, 64), 'abcdef0123456789-')]);
}

/** Commands that are well-formed but name things that are not there: not_found, conflict or unavailable. */
function pointsNowhere(random: Random, id: string): Record<string, unknown> {
  const sessionId = ghostId(random);
  return random.pick<Record<string, unknown>>([
    { type: 'session.continue', id, sessionId, request: 'and then?' },
    { type: 'session.stop', id, sessionId },
    { type: 'session.pause', id, sessionId },
    { type: 'session.resume', id, sessionId },
    { type: 'session.open', id, sessionId },
    { type: 'session.delete', id, sessionId },
    { type: 'session.rename', id, sessionId, title: 'Tidy the desktop' },
    { type: 'session.export', id, sessionId },
    { type: 'step.detail', id, sessionId, stepId: ghostId(random) },
    { type: 'blackboard.get', id, sessionId },
    { type: 'interaction.answer', id, sessionId, interactionId: ghostId(random), answers: ['yes'] },
    { type: 'interaction.decide', id, sessionId, interactionId: ghostId(random), approved: random.chance(0.5) },
    { type: 'form.event', id, sessionId, formId: ghostId(random), path: 'name', value: 'x', action: null },
  ]);
}

/** A command of a known type with one field wrong, missing or extra. */
function broken(random: Random, id: unknown): Record<string, unknown> {
  const type = random.pick(TYPES);
  const good: Record<string, unknown> = { ...pointsNowhere(random, 'x'), type, id };
  if (type === 'session.start') Object.assign(good, { request: 'do it', mode: 'shell' });
  const damage = random.int(0, 6);
  switch (damage) {
    case 0: // an unknown field: commands are strict
      return { ...good, [random.pick(['extra', 'admin', 'constructor', 'Type', 'ID', 'sessionid'])]: random.pick([1, true, 'x', null]) };
    case 1: // a mistyped field
      return { ...good, [random.pick(['sessionId', 'request', 'approved', 'answers', 'mode', 'query', 'values'])]: random.pick([42, [], {}, null, false]) };
    case 2: // an empty request or one over the limit, for the commands that carry one
      return { type: random.pick(['session.start', 'session.continue']), id, sessionId: ghostId(random), request: random.pick(['', '   ', '\n\t', 'x'.repeat(20_001)]) };
    case 3: // a bad mode
      return { type: 'session.start', id, request: 'do it', mode: random.pick(['root', 'DESKTOP', '', 7, null]) };
    case 4: // answers that are not a list of 1..50 strings
      return { type: 'interaction.answer', id, sessionId: 'a', interactionId: 'b', answers: random.pick([[], 'yes', [1], Array.from({ length: 51 }, () => 'y')]) };
    case 5: // a required field missing
      return { type: random.pick(TYPES.filter((name) => !['session.list', 'settings.get', 'servers.status', 'servers.check', 'session.start'].includes(name))), id };
    default: // over-long ids and names
      return { type: random.pick(['session.open', 'session.stop', 'blackboard.get']), id, sessionId: 'x'.repeat(random.int(65, 500)) };
  }
}

const generators: Record<string, (random: Random) => string> = {
  'not JSON': (random) =>
    random.pick([
      '',
      ' ',
      '{',
      '}',
      'undefined',
      "{'type': 'session.list'}",
      '{"type":"session.list","id":"a",}',
      'NaN',
      random.unicode(random.int(1, 200)),
      JSON.stringify({ type: 'session.list', id: 'cut' }).slice(0, random.int(1, 20)),
    ]),
  'not an object': (random) => JSON.stringify(random.pick([null, 0, -1.5, true, 'session.list', [], [{ type: 'session.list', id: 'x' }], random.unicode(10)])),
  'no or unknown type': (random) =>
    JSON.stringify(
      random.pick<Record<string, unknown>>([
        { id: 'x' },
        { type: null, id: 'x' },
        { type: 42, id: 'x' },
        { type: 'session.destroy', id: 'x' },
        { type: 'SESSION.LIST', id: 'x' },
        { type: 'session.list ', id: 'x' },
        { type: random.chars(random.int(1, 30), 'abcdefghijklmnopqrstuvwxyz.'), id: 'x' },
        { type: ['session.list'], id: 'x' },
      ]),
    ),
  'bad id': (random) => {
    const type = random.pick(['session.list', 'settings.get']);
    return JSON.stringify(random.pick<Record<string, unknown>>([{ type }, { type, id: '' }, { type, id: 7 }, { type, id: null }, { type, id: 'i'.repeat(65) }, { type, id: ['a'] }]));
  },
  'broken command': (random) => JSON.stringify(broken(random, `b-${random.int(0, 1e6)}`)),
  'points nowhere': (random) => JSON.stringify(pointsNowhere(random, `n-${random.int(0, 1e6)}`)),
  'settings (not in this mode)': (random) =>
    JSON.stringify(random.pick<Record<string, unknown>>([{ type: 'settings.get', id: 's' }, { type: 'settings.set', id: 's', values: {} }])),
  'deep nesting': (random) => {
    const depth = random.int(100, 50_000);
    return random.chance(0.5) ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `{"type":"session.list","id":"d","query":${'['.repeat(depth)}${']'.repeat(depth)}}`;
  },
  'prototype keys': (random) =>
    random.pick([
      '{"__proto__":{"type":"session.list","id":"p"}}',
      '{"type":"session.list","id":"p","__proto__":{"admin":true}}',
      '{"type":"session.list","id":"p","constructor":{"prototype":{"x":1}}}',
      '{"constructor":"session.list","id":"p"}',
    ]),
};

export const PROTOCOL_CATEGORIES = Object.keys(generators);

/** `count` bad messages, categories in turn, then shuffled. */
export function badMessages(random: Random, count: number): BadMessage[] {
  const messages = Array.from({ length: count }, (_, index) => {
    const category = PROTOCOL_CATEGORIES[index % PROTOCOL_CATEGORIES.length] as string;
    return { category, text: (generators[category] as (r: Random) => string)(random) };
  });
  return random.shuffle(messages);
}

/** Messages over the host's size limit (256 KB): refused unread in-process; over WebSocket the socket closes. */
export function oversizeMessage(random: Random): string {
  return JSON.stringify({ type: 'session.list', id: 'big', query: random.chars(300_000, 'ab') });
}
