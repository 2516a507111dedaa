// Figure 3: the prompt's size at step 200 of one long session against step 5 (the scripted model and
// the stand-in device client): history and blackboard must stay within their budgets.
import type { ScenarioStep } from '../fixtures/model-server';
import { emit, goal, info, note, runBench } from '../support/bench-stats';
import { replies, runRequest, startHostHarness } from '../support/host-harness';

const LAST = 200;

/** Different actions with different words, as a real session has: the history lines differ step by step. */
function action(i: number): ScenarioStep {
  const fields = [
    { Function: 'click', Args: { x: (i * 37) % 320, y: (i * 53) % 200 }, ControlText: `Button ${i}` },
    { Function: 'type_text', Args: { text: `line ${i}: the quick brown fox jumps over the lazy dog ${i * 7}` } },
    { Function: 'hotkey', Args: { keys: i % 2 ? ['ctrl', 's'] : ['tab'] } },
    { Function: 'wait', Args: { seconds: (i % 3) + 1 } },
  ][i % 4] as Record<string, unknown>;
  return replies.app({
    ...fields,
    Status: 'CONTINUE',
    Observation: `After step ${i} the editor shows ${i} lines; the status bar says "saved ${i} times".`,
    Thought: `Step ${i}: go on with the next part of the document.`,
    Plan: [`part ${i + 1}`, `part ${i + 2}`],
    Comment: i % 10 === 0 ? `Checkpoint ${i}: ${i} parts written.` : '',
  });
}

async function main(): Promise<void> {
  note(`a session of ${LAST + 5} steps ...`);
  const harness = await startHostHarness(
    {
      name: 'long session',
      steps: [
        replies.hostTo('Terminal', 'write the long document, part by part'),
        ...Array.from({ length: LAST + 3 }, (_, i) => action(i)),
        replies.app({ Function: '', Status: 'FINISH', Comment: 'written' }),
        replies.host({ Status: 'FINISH', Comment: 'done' }),
      ],
    },
    { config: { limits: { maxStepsPerRound: 1_000, maxStepsPerSession: 10_000 }, safety: { confirmation: 'never' } } },
  );
  try {
    const { outcome, steps } = await runRequest(harness.host, 'write the long document, part by part');
    if (outcome.status !== 'finished') throw new Error(`the run ended ${JSON.stringify(outcome)}`);
    // Session step n (1-based) is the n-th model request.
    const at = (n: number) => {
      const request = harness.model.requests[n - 1];
      const step = steps[n - 1];
      if (!request || !step) throw new Error(`no step ${n}`);
      return { chars: request.text.length, images: request.images, tokens: step.tokens.prompt };
    };
    const early = at(5);
    const late = at(LAST);
    if (early.images !== late.images) throw new Error(`step 5 sent ${early.images} images, step ${LAST} ${late.images}`);
    emit([
      info('Prompt text at step 5 (images aside)', early.chars, 'chars'),
      info(`Prompt text at step ${LAST}`, late.chars, 'chars'),
      goal(`Prompt size at step ${LAST} / at step 5`, late.chars / early.chars, 'ratio', '<=', 1.5),
    ]);
  } finally {
    await harness.close();
  }
}

runBench(main);
