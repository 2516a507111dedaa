import type { AutoResponder } from '../session/interaction-broker';
import type { CliRun } from './args';

/**
 * Headless answers: `--answer` values are used in order, one per question (a question left without one
 * gets "no answer given"); approvals follow `--approve`, and are rejected by default.
 */
export function cliResponder(run: CliRun): AutoResponder {
  const answers = [...run.answers];
  return (interaction) => {
    if (interaction.kind === 'confirm') {
      return { kind: 'decision', approved: run.approve, note: run.approve ? 'approved with --approve' : 'rejected: run without --approve' };
    }
    return { kind: 'answers', answers: interaction.questions.map(() => answers.shift() ?? 'no answer given') };
  };
}
