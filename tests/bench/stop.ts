// Figure 6: Stop, from `session.stop` to the run halted with the model request in flight aborted (the
// scripted model never answers): until `sessions.running` has settled and the model server has no request
// in flight. p95 over RUNS runs, each its own session.
import { emit, goal, info, note, percentile, runBench, until } from '../support/bench-stats';
import { startHostHarness } from '../support/host-harness';

const RUNS = 21; // the first one warms up

async function main(): Promise<void> {
  const harness = await startHostHarness({ name: 'never answers', steps: Array.from({ length: RUNS }, () => ({ hang: true as const })) });
  const { host, model } = harness;
  const times: number[] = [];
  try {
    note(`${RUNS} runs stopped while the model request hangs ...`);
    for (let run = 0; run < RUNS; run++) {
      const reply = await host.endpoint.handle({ type: 'session.start', id: `start-${run}`, request: 'list my files', mode: 'shell' });
      if (reply.type !== 'reply' || !reply.ok) throw new Error(`start refused: ${JSON.stringify(reply)}`);
      const sessionId = (reply.result as { session: { id: string } }).session.id;
      await until('the model request', () => model.inFlight() === 1 && model.requests.length === run + 1);
      const running = host.sessions.running;
      if (!running) throw new Error('no run');
      const started = performance.now();
      const stopped = await host.endpoint.handle({ type: 'session.stop', id: `stop-${run}`, sessionId });
      if (stopped.type !== 'reply' || !stopped.ok) throw new Error(`stop refused: ${JSON.stringify(stopped)}`);
      const outcome = await running;
      await until('the model request to be aborted', () => model.inFlight() === 0);
      const took = performance.now() - started;
      if (outcome.status !== 'stopped') throw new Error(`run ${run} ended ${JSON.stringify(outcome)}`);
      if (run > 0) times.push(took);
    }
    emit([info('Stop to halted, p50', percentile(times, 50), 'ms'), goal('Stop to halted with the model request aborted, p95', percentile(times, 95), 'ms', '<=', 250)]);
  } finally {
    await harness.close();
  }
}

runBench(main);
