import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostEvent } from '../../src-main/protocol';
import { startModelServer, type Scenario } from '../fixtures/model-server';
import { spawnEntry } from '../support/entry-process';
import { readDeviceActions, replies } from '../support/host-harness';
import { isolatedHome, roundWithin, startReliabilityHost, startSession, waitUntil, withDeadline, type ReliabilityHost, type ReliabilityHostOptions } from '../support/reliability-harness';
import { seeded, seedFromEnv, soaking } from '../support/reliability-random';
import { folderOn, mountSmallDisk, type SmallDisk } from '../support/small-disk';

// Deskhand's data folder on a real file system of 16 MB (tmpfs), filled up while a run goes on: by
// another program between two steps, by the agent's own command within a step, while the user answers
// a question, and at random moments. The run pauses and says which disk is full; nothing is acted on
// meanwhile; Resume after space is freed goes on, and every step and answer is saved, the step whose
// action filled the disk included. Stop and a restart leave a resumable session; the CLI without a
// terminal stops rather than waiting.
const MB = 1024 * 1024;
const disk = mountSmallDisk(16);
const why = 'why' in disk ? disk.why : null;
const scratch = mkdtempSync(join(tmpdir(), 'deskhand-disk-full-'));
let run = 0;

afterAll(() => {
  if (!why) (disk as SmallDisk).unmount();
  rmSync(scratch, { recursive: true, force: true });
});

beforeAll(() => {
  if (why) console.warn(`[disk-full] skipped: ${why}`);
});

// The disk filled at a random moment of a run of shell commands, RUNS times.
const SEED = seedFromEnv(0x5eed_0d15);
const RUNS = soaking() ? 30 : 4;

/** The reasons the run paused for, in order; every pause here is for the disk, and says so. */
function pausedEvents(events: HostEvent[]): string[] {
  return events.flatMap((event) => {
    if (event.kind !== 'status.changed' || event.status !== 'paused') return [];
    if (event.pause !== 'disk') throw new Error(`a pause for another cause (${event.pause ?? 'none'}): ${event.detail}`);
    return [event.detail];
  });
}

function integrity(dataDir: string): string {
  const db = new Database(join(dataDir, 'deskhand.sqlite'), { readonly: true });
  try {
    return db.pragma('integrity_check', { simple: true }) as string;
  } finally {
    db.close();
  }
}

async function resume(reliable: ReliabilityHost, sessionId: string): Promise<void> {
  const reply = await reliable.host.endpoint.handle({ type: 'session.resume', id: `resume-${Date.now()}`, sessionId });
  expect(reply).toMatchObject({ ok: true });
}

/** The id of the question the run asked (and waits on). */
async function questionAsked(reliable: ReliabilityHost): Promise<string> {
  await waitUntil('the question', () => reliable.events.some((event) => event.kind === 'interaction.requested'));
  const requested = reliable.events.find((event) => event.kind === 'interaction.requested');
  if (requested?.kind !== 'interaction.requested') throw new Error('no question');
  return requested.interaction.id;
}

async function quietFor(ms: number): Promise<void> {
  await new Promise((done) => setTimeout(done, ms));
}

/** Another program takes the small disk's space, until `leaveBytes` are free. */
function fillDisk(leaveBytes: number): void {
  (disk as SmallDisk).fill(leaveBytes);
}

/** Frees the small disk: everything on it but the data folders (what fillDisk took, a download). */
function freeDisk(): void {
  const root = (disk as SmallDisk).path;
  for (const name of readdirSync(root)) if (!name.startsWith('data-')) rmSync(join(root, name), { recursive: true, force: true });
}

/** The agent's own command that fills the disk: head stops at the full disk and says so. */
function downloadFillingTheDisk() {
  const download = join((disk as SmallDisk).path, 'download.bin');
  return replies.app({ Function: 'execute_command', Args: { command: `head -c 64M /dev/zero > ${download}; echo exit=$?` }, Status: 'CONTINUE' });
}

/** The disk fills up as the user's answer is taken, before the agent's blackboard gets it. */
function fillOnceAnswered(reliable: ReliabilityHost): void {
  let filled = false;
  reliable.host.sessions.subscribe((event) => {
    if (event.kind !== 'interaction.resolved' || filled) return;
    filled = true;
    fillDisk(0);
  });
}

/**
 * A host whose data folder is on the small disk, for `body`; then the host is closed, the disk freed
 * for the next test, and the database checked. Returns the data folder.
 */
async function onSmallDisk(
  scenario: Scenario,
  options: Omit<ReliabilityHostOptions, 'dataDir' | 'actionLog'>,
  body: (on: { reliable: ReliabilityHost; dataDir: string; actionLog: string }) => Promise<void>,
): Promise<string> {
  const dataDir = folderOn(disk as SmallDisk, `data-${run++}`);
  const actionLog = join(scratch, `actions-${run}.jsonl`);
  const reliable = await startReliabilityHost(scenario, { ...options, dataDir, actionLog });
  try {
    await body({ reliable, dataDir, actionLog });
  } finally {
    await reliable.close();
    freeDisk();
  }
  expect(integrity(dataDir)).toBe('ok');
  return dataDir;
}

describe.skipIf(why !== null)('a full disk', () => {
  it('pauses a run before its next step while the data folder runs short, acts on nothing meanwhile, and goes on after Resume', async () => {
    const waits = 6;
    const scenario = {
      name: 'short of space between steps',
      steps: [
        replies.hostTo('Terminal', 'wait a little'),
        ...Array.from({ length: waits }, () => replies.app({ Function: 'wait', Args: { seconds: 0 }, Status: 'CONTINUE' })),
        replies.app({ Function: '', Status: 'FINISH', Comment: 'waited' }),
        replies.host({ Status: 'FINISH', Comment: 'done' }),
      ],
    };
    await onSmallDisk(scenario, { config: { limits: { minFreeDiskMb: 4 }, safety: { confirmation: 'never' } } }, async ({ reliable, dataDir, actionLog }) => {
      let appSteps = 0;
      // Another program takes the space right after the second step of the window's agent is saved.
      reliable.host.sessions.subscribe((event) => {
        if (event.kind === 'step.added' && event.step.agent === 'AppAgent' && ++appSteps === 2) fillDisk(1 * MB);
      });
      const sessionId = await startSession(reliable.host, 'wait a little', 'desktop');
      await waitUntil('the run to pause', () => pausedEvents(reliable.events).length > 0);
      expect(pausedEvents(reliable.events)[0]).toMatch(
        new RegExp(`^Only [01] MB free on the disk that holds Deskhand's data \\(${dataDir}\\); Deskhand keeps at least 4 MB free so that every step can be saved\\. Free some space, then Resume$`),
      );
      const asked = reliable.model.requests.length;
      const acted = readDeviceActions(actionLog).length;
      expect(readDeviceActions(actionLog).map((action) => action.tool)).toEqual(['focus_window', 'wait', 'wait']);
      await quietFor(300);
      expect(reliable.model.requests.length).toBe(asked);
      expect(readDeviceActions(actionLog)).toHaveLength(acted);
      expect(reliable.host.store.requireSession(sessionId).status).toBe('paused');

      // Resumed with the space still taken: it stays paused, saying so again, and still takes no step.
      const before = reliable.events.length;
      await resume(reliable, sessionId);
      await waitUntil('the run to say it is still paused', () => pausedEvents(reliable.events).length > 1);
      expect(reliable.events.slice(before).filter((event) => event.kind === 'status.changed').map((event) => event.status)).toEqual(['paused']);
      await quietFor(200);
      expect(reliable.model.requests.length).toBe(asked);
      expect(readDeviceActions(actionLog)).toHaveLength(acted);

      freeDisk();
      await resume(reliable, sessionId);
      expect(await roundWithin(reliable.host, 15_000, 'after the space was freed')).toMatchObject({ status: 'finished' });
      // After the pause the agent brings its window to the front again: the user may have used another one meanwhile.
      expect(readDeviceActions(actionLog).map((action) => action.tool)).toEqual(['focus_window', 'wait', 'wait', 'focus_window', 'wait', 'wait', 'wait', 'wait']);
      const steps = reliable.host.store.steps(sessionId);
      expect(steps.filter((step) => step.agent === 'AppAgent').map((step) => step.status)).toEqual([...Array.from({ length: waits }, () => 'CONTINUE'), 'FINISH']);
      expect(steps.every((step) => step.error === null)).toBe(true);
    });
  });

  it("keeps a step whose own action filled the disk, saves it after Resume, and loses nothing", async () => {
    const scenario = {
      name: 'the agent fills the disk',
      steps: [
        replies.app({ Function: 'execute_command', Args: { command: 'echo before' }, Status: 'CONTINUE' }),
        // head stops at the full disk and says so; the step is then too big for what is left.
        downloadFillingTheDisk(),
        replies.app({ Function: 'execute_command', Args: { command: 'echo after' }, Status: 'CONTINUE' }),
        replies.app({ Function: '', Status: 'FINISH', Comment: 'downloaded' }),
      ],
    };
    await onSmallDisk(scenario, { config: { limits: { minFreeDiskMb: 4 }, safety: { confirmation: 'never' } } }, async ({ reliable, dataDir }) => {
      const sessionId = await startSession(reliable.host, 'download it');
      await waitUntil('the run to pause', () => pausedEvents(reliable.events).length > 0);
      const [reason] = pausedEvents(reliable.events);
      expect(reason).toBe(
        `The disk that holds Deskhand's data (${dataDir}) is full (SQLITE_FULL): step 2 could not be saved. ` +
          'Free some space, then Resume to save it (Stop ends the round, without it if there is still no room)',
      );
      expect(reliable.host.store.steps(sessionId)).toHaveLength(1);
      // The full disk kept 'paused' from the database too: a window that opens the session (a reload, another
      // browser tab) is still told it is paused, and why, and so offers Resume.
      const opened = await reliable.host.endpoint.handle({ type: 'session.open', id: 'open', sessionId });
      expect(opened).toMatchObject({ ok: true, result: { session: { status: 'paused' }, pause: { detail: reason, cause: 'disk' } } });
      const listed = await reliable.host.endpoint.handle({ type: 'session.list', id: 'list' });
      expect(listed).toMatchObject({ ok: true, result: { sessions: [{ id: sessionId, status: 'paused' }] } });
      await quietFor(300);
      expect(reliable.model.requests).toHaveLength(2);

      freeDisk();
      await resume(reliable, sessionId);
      expect(await roundWithin(reliable.host, 15_000, 'after the space was freed')).toMatchObject({ status: 'finished' });
      const steps = reliable.host.store.steps(sessionId);
      expect(steps.map((step) => [step.index, step.status, step.error])).toEqual([
        [0, 'CONTINUE', null],
        [1, 'CONTINUE', null],
        [2, 'CONTINUE', null],
        [3, 'FINISH', null],
      ]);
      // The step that filled the disk is saved with what its command printed.
      expect(steps[1]?.result).toContain('exit=1');
      expect(steps[1]?.result).toMatch(/No space left on device/);
    });
  });

  it('completes the audit row of the command that filled the disk once its step is saved, not only at the next command or on closing', async () => {
    const scenario = { name: 'the last command fills the disk', steps: [downloadFillingTheDisk(), replies.app({ Function: '', Status: 'FINISH', Comment: 'downloaded' })] };
    await onSmallDisk(scenario, { config: { limits: { minFreeDiskMb: 4 }, safety: { confirmation: 'never' } } }, async ({ reliable, dataDir }) => {
      const sessionId = await startSession(reliable.host, 'download it');
      await waitUntil('the run to pause', () => pausedEvents(reliable.events).length > 0);
      freeDisk();
      await resume(reliable, sessionId);
      expect(await roundWithin(reliable.host, 15_000, 'after the space was freed')).toMatchObject({ status: 'finished' });
      // What is on disk, as a crash now would leave it (the store's own list shows what it holds in memory).
      const db = new Database(join(dataDir, 'deskhand.sqlite'), { readonly: true });
      try {
        expect(db.prepare("SELECT status FROM audit WHERE args_json LIKE '%head -c%'").all()).toEqual([{ status: 'success' }]);
      } finally {
        db.close();
      }
    });
  });

  it('a screenshot that cannot be saved fails its step before it acts, saying the disk is full; nothing runs, and the run goes on after Resume', async () => {
    const scenario = {
      name: 'no room for the screenshot',
      steps: [
        replies.hostTo('Terminal', 'click around'),
        replies.app({ Function: 'click', Args: { x: 10, y: 10 }, Status: 'CONTINUE' }),
        // The disk is full from here: this click's screenshot cannot be saved, so it is never sent.
        replies.app({ Function: 'click', Args: { x: 20, y: 20 }, Status: 'CONTINUE' }),
        replies.app({ Function: 'click', Args: { x: 30, y: 30 }, Status: 'CONTINUE' }),
        replies.app({ Function: '', Status: 'FINISH', Comment: 'clicked' }),
        replies.host({ Status: 'FINISH', Comment: 'done' }),
      ],
    };
    // The check before each step is off: the disk fills up within a step, as between the check and the screenshot.
    await onSmallDisk(scenario, { config: { limits: { minFreeDiskMb: 0 }, safety: { confirmation: 'never' } } }, async ({ reliable, dataDir, actionLog }) => {
      let appSteps = 0;
      reliable.host.sessions.subscribe((event) => {
        if (event.kind === 'step.added' && event.step.agent === 'AppAgent' && ++appSteps === 1) fillDisk(0);
      });
      const sessionId = await startSession(reliable.host, 'click around', 'desktop');
      await waitUntil('the run to pause', () => pausedEvents(reliable.events).length > 0);
      expect(pausedEvents(reliable.events)[0]).toMatch(/^The disk that holds Deskhand's data \(.*\) is full \(SQLITE_FULL\): step 3 could not be saved\./);
      await quietFor(300);
      expect(readDeviceActions(actionLog).filter((action) => action.tool === 'click')).toHaveLength(1);

      freeDisk();
      await resume(reliable, sessionId);
      expect(await roundWithin(reliable.host, 15_000, 'after the space was freed')).toMatchObject({ status: 'finished' });
      const app = reliable.host.store.steps(sessionId).filter((step) => step.agent === 'AppAgent');
      expect(app.map((step) => step.status)).toEqual(['CONTINUE', 'ERROR', 'CONTINUE', 'FINISH']);
      expect(app[1]?.error).toBe(`the screenshot could not be saved in ${join(dataDir, 'screenshots')}: the disk is full (ENOSPC)`);
      expect(app[1]?.screenshot).toBeNull();
      // The click of the step that failed never ran; the agent's next one did.
      const clicks = readDeviceActions(actionLog).filter((action) => action.tool === 'click').map((action) => action.args);
      expect(clicks).toEqual([
        expect.objectContaining({ x: 10, y: 10 }),
        expect.objectContaining({ x: 30, y: 30 }),
      ]);
    });
  });

  it(`filled at a random moment (${RUNS} runs, seed ${SEED}): every command that ran is in a saved step, and no step is lost or doubled`, async () => {
    const random = seeded(SEED);
    let pausedRuns = 0;
    for (let i = 0; i < RUNS; i++) {
      const commands = Array.from({ length: 8 }, (_, step) => `echo run ${i} step ${step}`);
      // Between two steps (another program, leaving less than the 1 MB kept free: the next step waits), or
      // anywhere within one with the check off (every write from then on fails: the audit, the step).
      const within = random.chance(0.5);
      const fillAfterSteps = random.int(0, commands.length - 3);
      const fillDelayMs = within ? random.int(0, 40) : 0;
      const leaveBytes = within ? 0 : random.int(0, MB - 1);
      const what = `run ${i + 1} (seed ${SEED}: ${within ? 'within' : 'between'} steps, after ${fillAfterSteps} + ${fillDelayMs} ms, leaving ${leaveBytes} bytes)`;
      const scenario = {
        name: `filled at random ${i}`,
        steps: [
          ...commands.map((command) => ({ ...replies.app({ Function: 'execute_command', Args: { command }, Status: 'CONTINUE' }), delayMs: random.int(0, 20) })),
          replies.app({ Function: '', Status: 'FINISH', Comment: 'all done' }),
        ],
      };
      const config = { limits: { minFreeDiskMb: within ? 0 : 1 }, safety: { confirmation: 'never' as const } };
      const dataDir = await onSmallDisk(scenario, { config }, async ({ reliable, actionLog }) => {
        let steps = 0;
        reliable.host.sessions.subscribe((event) => {
          if (event.kind !== 'step.added' || steps++ !== fillAfterSteps) return;
          if (fillDelayMs === 0) fillDisk(leaveBytes);
          else setTimeout(() => fillDisk(leaveBytes), fillDelayMs);
        });
        const sessionId = await startSession(reliable.host, 'run the commands');
        const round = reliable.host.sessions.running;
        if (!round) throw new Error('no round started');
        // Each pause is answered by freeing the space and resuming, until the round ends.
        let pauses = 0;
        for (;;) {
          const ended = await withDeadline(
            Promise.race([round.then(() => true), waitUntil('a pause', () => pausedEvents(reliable.events).length > pauses, 20_000).then(() => false)]),
            25_000,
            `${what}: neither paused nor ended`,
          );
          if (ended) break;
          pauses = pausedEvents(reliable.events).length;
          await quietFor(random.int(0, 50));
          freeDisk();
          await resume(reliable, sessionId);
        }
        if (pauses > 0) pausedRuns++;
        expect(await withDeadline(round, 15_000, `${what}: the round did not end`), what).toMatchObject({ status: 'finished' });
        const saved = reliable.host.store.steps(sessionId);
        expect(saved.map((step) => step.index), what).toEqual(saved.map((_, index) => index));
        expect(saved.at(-1)?.status, what).toBe('FINISH');
        // Every command that ran is in a saved step that says it ran, once and in order; a command kept
        // from running by the full disk is in a failed step that says why, and never ran.
        const ran = readDeviceActions(actionLog).map((action) => String(action.args.command));
        const commandOf = (step: (typeof saved)[number]) => String(step.action?.args.command);
        const acted = saved.filter((step) => step.action?.function === 'execute_command' && step.status === 'CONTINUE');
        expect(acted.map(commandOf), what).toEqual(ran);
        const refused = saved.filter((step) => step.action?.function === 'execute_command' && step.status !== 'CONTINUE');
        for (const step of refused) {
          expect(step.error, what).toBe("not run: the disk that holds Deskhand's data is full, so the command's audit record could not be written first");
          expect(ran, what).not.toContain(commandOf(step));
        }
        expect([...acted, ...refused].map(commandOf).sort(), what).toEqual([...commands].sort());
      });
      rmSync(dataDir, { recursive: true, force: true });
    }
    // The disk filled before the last steps in every run: each of them had to wait for space.
    expect(pausedRuns).toBe(RUNS);
  });

  it('a step that asks a question waits for space to be saved, and the question is asked only then', async () => {
    const scenario = {
      name: 'no room for a question',
      steps: [
        replies.app({ Function: 'execute_command', Args: { command: 'echo one' }, Status: 'CONTINUE' }),
        replies.app({ Function: '', Status: 'PENDING', Questions: ['Which folder?'] }),
        replies.app({ Function: '', Status: 'FINISH', Comment: 'asked' }),
      ],
    };
    await onSmallDisk(scenario, { config: { limits: { minFreeDiskMb: 0 }, safety: { confirmation: 'never' } } }, async ({ reliable }) => {
      reliable.host.sessions.subscribe((event) => {
        if (event.kind === 'step.added' && event.step.index === 0) fillDisk(0);
      });
      const asked = () => reliable.events.filter((event) => event.kind === 'interaction.requested');
      const sessionId = await startSession(reliable.host, 'ask me');
      await waitUntil('the run to pause', () => pausedEvents(reliable.events).length > 0);
      expect(pausedEvents(reliable.events)[0]).toMatch(/is full \(SQLITE_FULL\): step 2 could not be saved\./);
      await quietFor(200);
      expect(asked()).toHaveLength(0);
      freeDisk();
      await resume(reliable, sessionId);
      expect(await roundWithin(reliable.host, 15_000, 'after the space was freed')).toMatchObject({ status: 'finished' });
      expect(asked()).toHaveLength(1);
      expect(reliable.host.store.steps(sessionId).map((step) => [step.status, step.error])).toEqual([
        ['CONTINUE', null],
        ['PENDING', null],
        ['FINISH', null],
      ]);
    });
  });

  it('answers given while the disk is full are refused with the reason, and the question stays open to be answered again', async () => {
    const answer = 'the folder called reports-2026';
    const scenario = {
      name: 'answered on a full disk',
      steps: [replies.app({ Function: '', Status: 'PENDING', Questions: ['Which folder?'] }), replies.app({ Function: '', Status: 'FINISH', Comment: 'used it' })],
    };
    // Nobody answers but the test, as a person in the UI would.
    await onSmallDisk(scenario, { autoResponder: () => null, config: { limits: { minFreeDiskMb: 0 } } }, async ({ reliable, dataDir }) => {
      const sessionId = await startSession(reliable.host, 'ask me');
      const interactionId = await questionAsked(reliable);
      fillDisk(0);
      const answerIt = () => reliable.host.endpoint.handle({ type: 'interaction.answer', id: `answer-${Date.now()}`, sessionId, interactionId, answers: [answer] });
      expect(await answerIt()).toMatchObject({
        ok: false,
        error: { message: `the host could not do that: The disk that holds Deskhand's data (${dataDir}) is full (SQLITE_FULL): free some space, then try again` },
      });
      freeDisk();
      expect(await answerIt()).toMatchObject({ ok: true });
      expect(await roundWithin(reliable.host, 15_000, 'after the space was freed')).toMatchObject({ status: 'finished' });
      expect(JSON.stringify(reliable.model.requests[1]?.body.messages)).toContain(answer);
    });
  });

  it('answers taken just before the disk filled are held until Resume, then saved and given to the agent', async () => {
    const answers = ['the folder called reports-2026', 'only the PDF files'];
    const scenario = {
      name: 'answered as the disk filled',
      steps: [
        replies.app({ Function: '', Status: 'PENDING', Questions: ['Which folder?', 'Which files?'] }),
        replies.app({ Function: '', Status: 'FINISH', Comment: 'used them' }),
      ],
    };
    await onSmallDisk(scenario, { autoResponder: () => null, config: { limits: { minFreeDiskMb: 0 } } }, async ({ reliable, dataDir }) => {
      fillOnceAnswered(reliable);
      const sessionId = await startSession(reliable.host, 'ask me');
      const interactionId = await questionAsked(reliable);
      expect(await reliable.host.endpoint.handle({ type: 'interaction.answer', id: 'answer', sessionId, interactionId, answers })).toMatchObject({ ok: true });
      await waitUntil('the run to pause', () => pausedEvents(reliable.events).length > 0);
      expect(pausedEvents(reliable.events)[0]).toBe(
        `The disk that holds Deskhand's data (${dataDir}) is full (SQLITE_FULL): your answers could not be saved. ` +
          'Free some space, then Resume to save them (Stop ends the round, without them if there is still no room)',
      );
      await quietFor(200);
      expect(reliable.model.requests).toHaveLength(1);
      freeDisk();
      await resume(reliable, sessionId);
      expect(await roundWithin(reliable.host, 15_000, 'after the space was freed')).toMatchObject({ status: 'finished' });
      for (const text of answers) expect(JSON.stringify(reliable.model.requests[1]?.body.messages)).toContain(text);
      const board = JSON.stringify(await reliable.host.endpoint.handle({ type: 'blackboard.get', id: 'board', sessionId }));
      // Both answers, once each: none was half written before the disk filled.
      for (const text of answers) expect(board.split(text)).toHaveLength(2);
    });
  });

  it('stopped while answers wait for space that is freed meanwhile: they are saved, and the run only says it is stopping', async () => {
    const answers = ['the folder called reports-2026'];
    const scenario = { name: 'stopped with answers waiting', steps: [replies.app({ Function: '', Status: 'PENDING', Questions: ['Which folder?'] })] };
    await onSmallDisk(scenario, { autoResponder: () => null, config: { limits: { minFreeDiskMb: 0 } } }, async ({ reliable }) => {
      fillOnceAnswered(reliable);
      const sessionId = await startSession(reliable.host, 'ask me');
      const interactionId = await questionAsked(reliable);
      expect(await reliable.host.endpoint.handle({ type: 'interaction.answer', id: 'answer', sessionId, interactionId, answers })).toMatchObject({ ok: true });
      await waitUntil('the run to pause', () => pausedEvents(reliable.events).length > 0);
      freeDisk();
      expect(await reliable.host.endpoint.handle({ type: 'session.stop', id: 'stop', sessionId })).toMatchObject({ ok: true });
      expect(await roundWithin(reliable.host, 10_000, 'the stop')).toMatchObject({ status: 'stopped' });
      const statuses = reliable.events.flatMap((event) => (event.kind === 'status.changed' ? [event.status] : []));
      expect(statuses.slice(statuses.indexOf('stopping'))).toEqual(['stopping']);
      const board = JSON.stringify(await reliable.host.endpoint.handle({ type: 'blackboard.get', id: 'board', sessionId }));
      expect(board.split(answers[0] as string)).toHaveLength(2);
    });
  });

  it('stopped while a step waits for space: the steps saved before are kept, and after a restart the session goes on', async () => {
    const config = { limits: { minFreeDiskMb: 4 }, safety: { confirmation: 'never' as const } };
    const scenario = {
      name: 'stopped on a full disk',
      steps: [replies.app({ Function: 'execute_command', Args: { command: 'echo before' }, Status: 'CONTINUE' }), downloadFillingTheDisk()],
    };
    let sessionId = '';
    const dataDir = await onSmallDisk(scenario, { config }, async ({ reliable }) => {
      sessionId = await startSession(reliable.host, 'download it');
      await waitUntil('the run to pause', () => pausedEvents(reliable.events).some((detail) => detail.includes('could not be saved')));
      const stopped = await reliable.host.endpoint.handle({ type: 'session.stop', id: 'stop', sessionId });
      expect(stopped).toMatchObject({ ok: true });
      // Its end may or may not fit on the full disk; either way the round is over and says so.
      const outcome = await roundWithin(reliable.host, 10_000, 'the stop');
      expect(['stopped', 'error']).toContain(outcome.status);
      if (outcome.status === 'error') expect(outcome.result).toMatch(/^the round ended \(stopped: Stopped by you\) but that could not be saved: .*it shows as interrupted at the next start$/);
    });

    const second = await startReliabilityHost(
      { name: 'after the restart', steps: [replies.app({ Function: '', Status: 'FINISH', Comment: 'done after all' })] },
      { dataDir, actionLog: join(scratch, `actions-${run}-after.jsonl`), config },
    );
    try {
      const { status } = second.host.store.requireSession(sessionId);
      expect(['stopped', 'interrupted']).toContain(status);
      const reply = await second.host.endpoint.handle(
        status === 'interrupted'
          ? { type: 'session.resume', id: 'go-on', sessionId }
          : { type: 'session.continue', id: 'go-on', sessionId, request: 'finish up' },
      );
      expect(reply).toMatchObject({ ok: true });
      expect(await roundWithin(second.host, 10_000, 'going on after the restart')).toMatchObject({ status: 'finished', result: 'done after all' });
      const steps = second.host.store.steps(sessionId);
      // The first step was saved before the disk filled; the one Stop gave up is not there, and nothing else is missing.
      expect(steps[0]).toMatchObject({ index: 0, status: 'CONTINUE', actionText: expect.stringContaining('echo before') });
      expect(steps.at(-1)).toMatchObject({ status: 'FINISH' });
      expect(steps.some((step) => step.actionText.includes('head -c'))).toBe(false);
      // Its command ran, though, and the audit says what it came to (written once there was room).
      const audit = second.host.audit.list(sessionId).filter((row) => String(row.args.command ?? '').startsWith('head -c'));
      expect(audit).toHaveLength(1);
      expect(audit[0]?.status).not.toBe('running');
    } finally {
      await second.close();
    }
    expect(integrity(dataDir)).toBe('ok');
  });

  it('the CLI, with no terminal to resume from, stops the run it paused and says why (exit 2) instead of waiting for ever', async () => {
    const small = disk as SmallDisk;
    const dataDir = folderOn(small, `data-${run++}`);
    // 16 MB in all, under the 100 MB Deskhand keeps free by default: the first step does not start.
    const model = await startModelServer({ name: 'never asked', steps: [replies.app({ Function: 'execute_command', Args: { command: 'echo hi' }, Status: 'CONTINUE' })] });
    try {
      const cli = spawnEntry('src-main/cli/main.ts', ['run', '--mode', 'shell', 'say hi'], {
        ...process.env,
        HOME: isolatedHome(scratch),
        DESKHAND_DATA_DIR: dataDir,
        OPENAI_BASE_URL: model.baseUrl,
        OPENAI_API_KEY: 'scripted',
      });
      const code = await withDeadline(cli.exited, 20_000, `the CLI did not end: ${cli.stderr()}`);
      const [stdout, stderr] = [cli.stdout(), cli.stderr()];
      expect(stderr).toMatch(
        new RegExp(`deskhand: the run paused \\(Only 1[0-9] MB free on the disk that holds Deskhand's data \\(${dataDir}\\); Deskhand keeps at least 100 MB free .*\\), and with no terminal to resume it from it is stopped\\.`),
      );
      expect(code).toBe(2);
      const ended = stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as HostEvent).find((event) => event.kind === 'session.ended');
      expect(ended).toMatchObject({ status: 'stopped' });
      expect(model.requests).toHaveLength(0);
    } finally {
      await model.close();
    }
    expect(integrity(dataDir)).toBe('ok');
  });
});
