import { memo } from 'react';
import type { StepView } from '../../../src-main/protocol';
import { SafeMarkdown } from '../forms/SafeMarkdown';
import { sameHeaders, type StepGroupHeaders } from '../store';
import { GroupHeaders } from './GroupHeaders';
import { formatCost, formatCount, formatDuration, NOT_RUN_LABELS, totalTokens } from './labels';
import { StepNotRunTag, StepStatusChip } from './StepStatusChip';
import { resultSummary } from './stepResult';
import { StepThumbnail } from './StepThumbnail';
import { TRAJECTORY_CLASSES } from './trajectoryStyles';

function StepField({ label, text, error = false }: { label: string; text: string; error?: boolean }) {
  if (!text) return null;
  return (
    <p className={error ? `${TRAJECTORY_CLASSES.field} ${TRAJECTORY_CLASSES.fieldError}` : TRAJECTORY_CLASSES.field}>
      <span className={TRAJECTORY_CLASSES.fieldLabel}>{label}:</span> {text}
    </p>
  );
}

/** A finished or failed agent's answer, often Markdown from the model: shown formatted. */
function AnswerField({ text }: { text: string }) {
  return (
    <div className={`${TRAJECTORY_CLASSES.field} ${TRAJECTORY_CLASSES.answer}`}>
      <span className={TRAJECTORY_CLASSES.fieldLabel}>Result:</span>{' '}
      <SafeMarkdown text={text} />
    </div>
  );
}

const ANSWERS = new Set<StepView['status']>(['FINISH', 'FAIL']);

export function stepUsage(step: StepView): string {
  const tokens = totalTokens(step.tokens);
  const parts = [formatDuration(step.durationMs)];
  if (tokens > 0) parts.push(`${formatCount(tokens)} tokens`);
  if (step.costUsd !== null && step.costUsd > 0) parts.push(formatCost(step.costUsd));
  return parts.join(' · ');
}

/** The longest action a step's name says whole; a longer one is cut (the row shows it all). */
const NAMED_ACTION_CHARS = 80;

/**
 * A step row's accessible name, short for a screen reader moving through the trajectory ("Step 3,
 * AppAgent · Text Editor, Click on 'Save', finish, Not run: stopped"): without it the whole row (thought,
 * result, tokens, cost) is read out at each arrow key. Enter opens the rest in the step detail.
 */
export function stepName(step: StepView): string {
  const action = step.actionText.length > NAMED_ACTION_CHARS ? `${step.actionText.slice(0, NAMED_ACTION_CHARS - 1).trimEnd()}…` : step.actionText;
  const parts = [`Step ${step.index + 1}`, step.target ? `${step.agent} · ${step.target}` : step.agent];
  if (action) parts.push(action);
  // In words, not capitals a screen reader may spell out.
  parts.push(step.status.toLowerCase());
  if (step.notRun !== null) parts.push(NOT_RUN_LABELS[step.notRun]);
  if (step.approvedBy === 'user') parts.push('approved by you');
  return parts.join(', ');
}

interface StepItemProps {
  step: StepView;
  headers: StepGroupHeaders;
  onOpen(stepId: string): void;
}

/** One step of the trajectory, with the round / sub-task headers it opens. A step never changes once added. */
export const StepItem = memo(
  function StepItem({ step, headers, onOpen }: StepItemProps) {
    const number = step.index + 1;
    const picture = step.annotated ?? step.screenshot;
    return (
      <>
        <GroupHeaders headers={headers} />
        <div className={TRAJECTORY_CLASSES.card} onClick={() => onOpen(step.id)}>
          {picture && <StepThumbnail screenshot={picture} stepNumber={number} />}
          <div className={TRAJECTORY_CLASSES.body}>
            <div className={TRAJECTORY_CLASSES.headline}>
              <h3 className={TRAJECTORY_CLASSES.title}>Step {number}</h3>
              <p className={TRAJECTORY_CLASSES.agent}>
                {step.agent}
                {step.target ? ` · ${step.target}` : ''}
              </p>
              <StepStatusChip status={step.status} />
              <StepNotRunTag notRun={step.notRun} />
              {step.approvedBy === 'user' && <span className={TRAJECTORY_CLASSES.approved}>approved by you</span>}
              <span className={TRAJECTORY_CLASSES.usage}>{stepUsage(step)}</span>
            </div>
            <StepField label="Thought" text={step.thought} />
            <StepField label="Action" text={step.actionText} />
            {step.result !== null &&
              (ANSWERS.has(step.status) ? <AnswerField text={step.result} /> : <StepField label="Result" text={resultSummary(step.result)} />)}
            {step.error !== null && <StepField label="Error" text={step.error} error />}
          </div>
        </div>
      </>
    );
  },
  (before, after) => before.step === after.step && before.onOpen === after.onOpen && sameHeaders(before.headers, after.headers),
);
