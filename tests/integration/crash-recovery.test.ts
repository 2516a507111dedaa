import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuditStore, UNFINISHED_AT_CRASH } from '../../src-main/commands/audit-store';
import { DeskhandConfig } from '../../src-main/host/config';
import { createHost, type Host } from '../../src-main/host/create-host';
import { DataDirInUseError, LOCK_FILE } from '../../src-main/host/data-dir-lock';
import { NOT_RUN_AT_CRASH, recoverInterrupted } from '../../src-main/host/recover-interrupted';
import { openDatabase } from '../../src-main/memory/database';
import { InteractionStore } from '../../src-main/memory/interaction-store';
import { SessionStore } from '../../src-main/memory/session-store';
import type { SessionStatus } from '../../src-main/protocol';
import { fakeDeviceLaunch, replies, startHostHarness, type HostHarness } from '../support/host-harness';

/** A host opened on the database a crash left: what was waiting for the user is settled and accounted for. */

let dataDir = '';
let host: Host | null = null;
let harness: HostHarness | null = null;
afterEach(async () => {
  await host?.close();
  host = null;
  await harness?.close();
  harness = null;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

function openHost(): Host {
  const config = DeskhandConfig.parse({ models: { host: { baseUrl: 'http://127.0.0.1:9/v1', model: 'scripted' } } });
  return createHost({ dataDir, config, env: { ...process.env, OPENAI_API_KEY: 'test-key' }, deviceLaunch: fakeDeviceLaunch({}) });
}

describe('start-up after a crash', () => {
  it('audits each action that was waiting for approval as never run, and cancels the approval', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'deskhand-crash-'));
    // The state a kill during an approval leaves: the session running, the approval open, nothing audited.
    const db = openDatabase(join(dataDir, 'deskhand.sqlite'));
    const sessions = new SessionStore(db);
    const session = sessions.createSession('clean up', 'shell');
    sessions.startRound(session.id, 'clean up');
    new InteractionStore(db).save({
      kind: 'confirm',
      id: 'held-1',
      sessionId: session.id,
      agent: 'ShellAgent',
      actionText: "Run 'rm -rf build/'",
      actions: [{ function: 'execute_command', args: { command: 'rm -rf build/' } }],
      target: null,
      reasons: ['rule: destructive shell command (rm -rf)'],
      screenshot: null,
    });
    // An earlier command of the session was under way when it died: its row was written before it ran.
    new AuditStore(db).begin({
      callId: 'under-way',
      sessionId: session.id,
      stepIdx: 0,
      agent: 'ShellAgent',
      tool: 'execute_command',
      toolType: 'action',
      args: { command: 'make release' },
      decision: 'allowed',
      approvedBy: 'policy',
      requestedAt: Date.now(),
    });
    db.close();

    host = openHost();
    expect(host.interrupted).toEqual([session.id]);
    expect(host.audit.list(session.id)).toMatchObject([
      { callId: 'under-way', args: { command: 'make release' }, status: 'unknown', error: UNFINISHED_AT_CRASH },
      {
        tool: 'execute_command',
        args: { command: 'rm -rf build/' },
        agent: 'ShellAgent',
        decision: 'rejected',
        approvedBy: null,
        status: 'skipped',
        error: NOT_RUN_AT_CRASH,
        reasons: ['rule: destructive shell command (rm -rf)'],
      },
    ]);
    const detail = await host.endpoint.handle({ type: 'session.open', id: 'o', sessionId: session.id });
    expect(detail).toMatchObject({ ok: true, result: { session: { status: 'interrupted' }, interactions: [] } });

    // Opened again, nothing is audited twice: the approval is no longer open.
    await host.close();
    host = openHost();
    expect(host.interrupted).toEqual([]);
    expect(host.audit.list(session.id)).toHaveLength(2);
  });

  it('a second Deskhand on the same data folder is refused, and leaves the first one\'s sessions alone', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'deskhand-lock-'));
    const db = openDatabase(join(dataDir, 'deskhand.sqlite'));
    const sessions = new SessionStore(db);
    const session = sessions.createSession('a long job', 'shell');
    sessions.startRound(session.id, 'a long job');
    db.close();
    // Another live process holds the folder (as the desktop app would while it runs).
    const other = spawn('sleep', ['30']);
    try {
      writeFileSync(join(dataDir, LOCK_FILE), String(other.pid));
      expect(() => openHost()).toThrow(DataDirInUseError);
      expect(() => openHost()).toThrow(new RegExp(`another Deskhand \\(process ${other.pid}\\) is using the data folder`));
      const check = openDatabase(join(dataDir, 'deskhand.sqlite'));
      expect(new SessionStore(check).getSession(session.id)?.status).toBe('running');
      check.close();
    } finally {
      other.kill('SIGKILL');
      await new Promise((done) => other.once('exit', done));
    }
    // Its owner gone (a crash), the lock is taken over, and the session is recovered as interrupted.
    host = openHost();
    expect(host.interrupted).toEqual([session.id]);
    await host.close();
    host = null;
    expect(existsSync(join(dataDir, LOCK_FILE)), 'released on close').toBe(false);
  });

  it('a database that cannot be written at start-up (full disk, locked, read-only) stops it with an error naming the file, and lets the folder go', () => {
    dataDir = mkdtempSync(join(tmpdir(), 'deskhand-unwritable-'));
    const file = join(dataDir, 'deskhand.sqlite');
    const db = openDatabase(file);
    const sessions = new SessionStore(db);
    const session = sessions.createSession('a long job', 'shell');
    sessions.startRound(session.id, 'a long job');
    // What SQLite answers when recovery's first write finds no room.
    db.exec(`CREATE TRIGGER full BEFORE UPDATE ON rounds BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`);
    db.close();

    expect(() => openHost()).toThrow(`cannot recover the sessions in ${file}: database or disk is full`);
    expect(existsSync(join(dataDir, LOCK_FILE)), 'lock released').toBe(false);
    // Nothing of the recovery was written, and the database was closed: it is whole for the next start.
    const check = openDatabase(file);
    expect(new SessionStore(check).getSession(session.id)?.status).toBe('running');
    check.exec('DROP TRIGGER full');
    check.close();
    host = openHost();
    expect(host.interrupted).toEqual([session.id]);
  });
});

describe('what a crash part-way through a write leaves', () => {
  it('a kill while a session is deleted (its rows gone, its screenshots not yet) leaves no folder behind after the next start', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'deskhand-orphans-'));
    const db = openDatabase(join(dataDir, 'deskhand.sqlite'));
    const sessions = new SessionStore(db);
    const kept = sessions.createSession('kept', 'shell');
    const deleted = sessions.createSession('deleted', 'shell');
    sessions.setStatus(kept.id, 'finished', 'ok');
    sessions.deleteSession(deleted.id);
    db.close();
    const folder = (name: string): string => join(dataDir, 'screenshots', name);
    for (const name of [kept.id, deleted.id, 'not-a-session']) {
      mkdirSync(folder(name), { recursive: true });
      writeFileSync(join(folder(name), 'step-00000.jpg'), 'img');
    }

    host = openHost();
    await vi.waitFor(() => expect(existsSync(folder(deleted.id))).toBe(false));
    expect(existsSync(join(folder(kept.id), 'step-00000.jpg'))).toBe(true);
    // Only folders named like a session are Deskhand's to remove.
    expect(existsSync(folder('not-a-session'))).toBe(true);
  });

  it('a kill while the end of a round is saved leaves the round and its session unfinished together: Resume runs it, not a finished one', async () => {
    harness = await startHostHarness({
      name: 'round end cut off',
      steps: [replies.host({ Status: 'FINISH', Comment: 'done' }), replies.host({ Status: 'FINISH', Comment: 'done after the crash' })],
    });
    const { store } = harness.host;
    const setStatus = store.setStatus.bind(store);
    // The process dies just before the session's status is written: that write, and what came before it, never land.
    store.setStatus = (id: string, status: SessionStatus, result?: string | null) => {
      if (status === 'finished') throw new Error('killed');
      return setStatus(id, status, result);
    };
    const start = await harness.host.endpoint.handle({ type: 'session.start', id: 's', request: 'do it' });
    const sessionId = (start as { result: { session: { id: string } } }).result.session.id;
    // The UI is told the end could not be saved, not the outcome the database does not hold.
    expect(await harness.host.sessions.running).toEqual({
      status: 'error',
      result: 'the round ended (finished: done) but that could not be saved: killed; it shows as interrupted at the next start',
    });
    expect(store.getSession(sessionId)?.status).toBe('running');
    expect(store.rounds(sessionId)).toMatchObject([{ idx: 0, status: 'running', result: null }]);

    const restarted = await harness.restart();
    expect(restarted.interrupted).toEqual([sessionId]);
    expect(restarted.store.rounds(sessionId)).toMatchObject([{ idx: 0, status: 'interrupted' }]);
    expect(await restarted.endpoint.handle({ type: 'session.resume', id: 'r', sessionId })).toMatchObject({ ok: true });
    expect(await restarted.sessions.running).toEqual({ status: 'finished', result: 'done after the crash' });
  });

  it('a session whose round end could not be saved can be deleted at once, not only after a restart', async () => {
    harness = await startHostHarness({ name: 'round end unsaved', steps: [replies.host({ Status: 'FINISH', Comment: 'done' })] });
    const { store } = harness.host;
    const setStatus = store.setStatus.bind(store);
    store.setStatus = (id: string, status: SessionStatus, result?: string | null) => {
      if (status === 'finished') throw new Error('disk I/O error');
      return setStatus(id, status, result);
    };
    const start = await harness.host.endpoint.handle({ type: 'session.start', id: 's', request: 'do it' });
    const sessionId = (start as { result: { session: { id: string } } }).result.session.id;
    expect(await harness.host.sessions.running).toMatchObject({ status: 'error' });
    // The store still says running, but nothing runs: deleting it is not refused with "stop it first".
    expect(store.getSession(sessionId)?.status).toBe('running');
    expect(await harness.host.endpoint.handle({ type: 'session.stop', id: 'x', sessionId })).toMatchObject({ ok: true });
    expect(await harness.host.endpoint.handle({ type: 'session.delete', id: 'd', sessionId })).toMatchObject({ ok: true, result: { sessionId } });
    expect(store.getSession(sessionId)).toBeNull();
  });

  it('start-up recovery is all or nothing: a crash part-way leaves every session for the next start', () => {
    dataDir = mkdtempSync(join(tmpdir(), 'deskhand-recovery-'));
    const db = openDatabase(join(dataDir, 'deskhand.sqlite'));
    const sessions = new SessionStore(db);
    const interactions = new InteractionStore(db);
    const audit = new AuditStore(db);
    const held = ['first', 'second'].map((request) => {
      const session = sessions.createSession(request, 'shell');
      sessions.startRound(session.id, request);
      interactions.save({
        kind: 'confirm',
        id: `held-${request}`,
        sessionId: session.id,
        agent: 'ShellAgent',
        actionText: `Run 'rm -rf ${request}/'`,
        actions: [{ function: 'execute_command', args: { command: `rm -rf ${request}/` } }],
        target: null,
        reasons: ['rule: destructive shell command (rm -rf)'],
        screenshot: null,
      });
      return session.id;
    });
    let records = 0;
    const dying = {
      record: (entry: Parameters<AuditStore['record']>[0]) => {
        // Killed while the second held action is being audited.
        if (++records === 2) throw new Error('killed');
        audit.record(entry);
      },
      markUnfinishedUnknown: () => audit.markUnfinishedUnknown(),
    };
    expect(() => recoverInterrupted(sessions, interactions, dying)).toThrow('killed');

    expect(recoverInterrupted(sessions, interactions, audit)).toEqual(held);
    for (const sessionId of held) {
      expect(sessions.getSession(sessionId)?.status).toBe('interrupted');
      expect(interactions.open(sessionId)).toEqual([]);
      expect(audit.list(sessionId)).toMatchObject([{ tool: 'execute_command', status: 'skipped', error: NOT_RUN_AT_CRASH }]);
    }
    db.close();
  });
});
