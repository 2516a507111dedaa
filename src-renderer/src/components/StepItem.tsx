import { Box, Paper, Typography } from '@mui/material';
import { memo } from 'react';
import type { StepView } from '../../../src-main/protocol';
import { sameHeaders, type StepGroupHeaders } from '../store';
import { GroupHeaders } from './GroupHeaders';
import { formatCost, formatCount, formatDuration, totalTokens } from './labels';
import { StepStatusChip } from './StepStatusChip';
import { StepThumbnail } from './StepThumbnail';

const wrapped = { whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' } as const;
const clamped = { ...wrapped, display: '-webkit-box', WebkitLineClamp: 4, WebkitBoxOrient: 'vertical', overflow: 'hidden' } as const;

function StepField({ label, text, color }: { label: string; text: string; color?: string }) {
  if (!text) return null;
  return (
    <Typography variant="body2" color={color} sx={clamped}>
      <Box component="span" sx={{ fontWeight: 600 }}>
        {label}:
      </Box>{' '}
      {text}
    </Typography>
  );
}

export function stepUsage(step: StepView): string {
  const tokens = totalTokens(step.tokens);
  const parts = [formatDuration(step.durationMs)];
  if (tokens > 0) parts.push(`${formatCount(tokens)} tokens`);
  if (step.costUsd !== null && step.costUsd > 0) parts.push(formatCost(step.costUsd));
  return parts.join(' · ');
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
      <Box sx={{ pb: 0.75 }}>
        <GroupHeaders headers={headers} />
        <Paper
          variant="outlined"
          onClick={() => onOpen(step.id)}
          sx={{ display: 'flex', gap: 2, p: 1.5, mx: 2, mt: 0.75, cursor: 'pointer', '&:hover': { borderColor: 'text.secondary' } }}
        >
          {picture && <StepThumbnail screenshot={picture} stepNumber={number} />}
          <Box sx={{ minWidth: 0, flex: 1, display: 'flex', flexDirection: 'column', gap: 0.5 }}>
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
              <Typography variant="subtitle2" component="h3">
                Step {number}
              </Typography>
              <Typography variant="body2" color="text.secondary">
                {step.agent}
                {step.target ? ` · ${step.target}` : ''}
              </Typography>
              <StepStatusChip status={step.status} />
              {step.approvedBy === 'user' && (
                <Typography variant="caption" color="success.main">
                  approved by you
                </Typography>
              )}
              <Typography variant="caption" color="text.secondary" sx={{ ml: 'auto' }}>
                {stepUsage(step)}
              </Typography>
            </Box>
            <StepField label="Thought" text={step.thought} />
            <StepField label="Action" text={step.actionText} />
            {step.result !== null && <StepField label="Result" text={step.result} />}
            {step.error !== null && <StepField label="Error" text={step.error} color="error" />}
          </Box>
        </Paper>
      </Box>
    );
  },
  (before, after) => before.step === after.step && before.onOpen === after.onOpen && sameHeaders(before.headers, after.headers),
);
