import CloseIcon from '@mui/icons-material/Close';
import { Alert, Box, Button, Dialog, DialogContent, DialogTitle, IconButton, Typography, useMediaQuery } from '@mui/material';
import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { StepDetail, StepView } from '../../../src-main/protocol';
import { useDeskhand, useUi } from '../store';
import { DetailSection } from './DetailSection';
import { formatCost, formatCount } from './labels';
import { PhaseTimings } from './PhaseTimings';
import { ScreenshotViewer } from './ScreenshotViewer';
import { StepNotRunTag, StepStatusChip } from './StepStatusChip';
import { ToolResultSection } from './ToolResultSection';
import { useNarrowWindow } from './useNarrowWindow';
import { ViewErrorBoundary } from './ViewErrorBoundary';

type Fetched = { stepId: string; detail: StepDetail } | { stepId: string; error: string };

function prettyReply(reply: string): string {
  try {
    return JSON.stringify(JSON.parse(reply), null, 2);
  } catch {
    return reply;
  }
}

/**
 * Wide: the screenshot and the details side by side, each in its own scroll. Stacked (a narrow window):
 * the screenshot gets a fixed share of the height and the details run on below it, the whole dialog
 * scrolling, since two scrolls one above the other leave each a sliver.
 */
function StepDetailBody({ step, fetched, stacked }: { step: StepView; fetched: Fetched | null; stacked: boolean }) {
  const detail = fetched && 'detail' in fetched ? fetched.detail : null;
  const tokens = `${formatCount(step.tokens.prompt)} prompt + ${formatCount(step.tokens.completion)} completion tokens${
    step.costUsd !== null ? ` · ${formatCost(step.costUsd)}` : ''
  }`;
  return (
    <Box sx={{ display: 'flex', gap: 3, flexDirection: stacked ? 'column' : 'row', ...(stacked ? {} : { height: '100%', minHeight: 0 }) }}>
      <Box sx={{ minWidth: 0, display: 'flex', flexDirection: 'column', ...(stacked ? { height: 'max(280px, 60vh)', flexShrink: 0 } : { flex: 3, minHeight: 320 }) }}>
        <ScreenshotViewer clean={step.screenshot} annotated={step.annotated} label={`Screenshot of step ${step.index + 1}`} />
      </Box>
      <Box
        sx={{ minWidth: 0, ...(stacked ? {} : { flex: 2, overflowY: 'auto', pr: 1 }) }}
        {...(stacked ? {} : { tabIndex: 0 })}
        role="region"
        aria-label="Step details"
      >
        <DetailSection title="Observation">{step.observation}</DetailSection>
        <DetailSection title="Thought">{step.thought}</DetailSection>
        <DetailSection title="Plan">
          {step.plan.length > 0 ? (
            <Box component="ol" sx={{ m: 0, pl: 3 }}>
              {step.plan.map((item, i) => (
                <Typography component="li" variant="body2" key={i}>
                  {item}
                </Typography>
              ))}
            </Box>
          ) : null}
        </DetailSection>
        <DetailSection title="Comment">{step.comment}</DetailSection>
        <DetailSection title="Action">{step.actionText}</DetailSection>
        {step.action && (
          <DetailSection title="Action call" mono>
            {`${step.action.function}(${JSON.stringify(step.action.args, null, 2)})`}
          </DetailSection>
        )}
        <ToolResultSection result={step.result} />
        {step.error && (
          <Alert severity="error" sx={{ mb: 2 }}>
            {step.error}
          </Alert>
        )}
        <DetailSection title="Timings">
          <PhaseTimings phaseMs={step.phaseMs} totalMs={step.durationMs} />
        </DetailSection>
        <DetailSection title="Tokens">{tokens}</DetailSection>
        <DetailSection title="Raw model reply" mono>
          {fetched === null ? 'Loading…' : detail ? (detail.modelReply ? prettyReply(detail.modelReply) : '(none: no model was asked in this step)') : `Not available: ${'error' in fetched ? fetched.error : ''}`}
        </DetailSection>
        {detail?.promptText && (
          <DetailSection title="Prompt (text parts)" mono>
            {detail.promptText}
          </DetailSection>
        )}
      </Box>
    </Box>
  );
}

/**
 * Everything about one step: the screenshot (clean or annotated, zoomable), what the agent saw, thought
 * and planned, the raw model reply (fetched on demand with `step.detail`), the tool result and timings.
 * Alt+←/→ go to the previous / next step.
 */
const NO_STEPS: StepView[] = [];

export function StepDetailDialog() {
  const stepId = useUi((state) => state.detailStepId);
  const openStep = useUi((state) => state.openStep);
  // Closed, the dialog needs no steps: it must not re-render on every new one.
  const steps = useDeskhand((state) => (stepId === null ? NO_STEPS : state.steps));
  const loadDetail = useDeskhand((state) => state.stepDetail);
  const [fetched, setFetched] = useState<Fetched | null>(null);
  const position = stepId === null ? -1 : steps.findIndex((step) => step.id === stepId);
  const step = position === -1 ? null : steps[position];

  useEffect(() => {
    if (stepId === null) return;
    let current = true;
    setFetched(null);
    loadDetail(stepId).then(
      (detail) => current && setFetched({ stepId, detail }),
      (error: unknown) => current && setFetched({ stepId, error: error instanceof Error ? error.message : String(error) }),
    );
    return () => {
      current = false;
    };
  }, [stepId, loadDetail]);

  // Its step went with its session (deleted in another window): the dialog is closed, not merely hidden.
  useEffect(() => {
    if (stepId !== null && position === -1) openStep(null);
  }, [stepId, position, openStep]);

  const stacked = useNarrowWindow();
  // A short or narrow window: the dialog takes all of it rather than a frame of backdrop around it.
  const fullScreen = useMediaQuery('(max-width: 899.95px), (max-height: 699.95px)', { noSsr: true });
  const paperRef = useRef<HTMLDivElement>(null);
  const close = () => openStep(null);
  const moved = useRef(false);
  const go = (offset: number): void => {
    const next = steps[position + offset];
    if (!next) return;
    moved.current = true;
    openStep(next.id);
  };
  // A control that had the focus may be gone or disabled on the next step (Annotated, Next step at the
  // last): the keyboard stays in the dialog. Checked as soon as the step is on screen: a frame later,
  // a disabled button still held the focus, and the browser then dropped it on <body>, with the next key.
  useLayoutEffect(() => {
    if (!moved.current) return;
    moved.current = false;
    const paper = paperRef.current;
    const active = document.activeElement;
    if (paper && (!paper.contains(active) || (active instanceof HTMLButtonElement && active.disabled))) paper.focus();
  }, [stepId]);
  const onKeyDown = (event: KeyboardEvent): void => {
    if (!event.altKey) return;
    if (event.key === 'ArrowLeft') go(-1);
    else if (event.key === 'ArrowRight') go(1);
    else return;
    event.preventDefault();
  };

  return (
    <Dialog
      open={step !== null && step !== undefined}
      onClose={close}
      // The trajectory focuses the step last viewed, which need not be the row that opened the dialog.
      disableRestoreFocus
      fullWidth
      maxWidth="xl"
      fullScreen={fullScreen}
      onKeyDown={onKeyDown}
      // Named "Step 2 AppAgent · Text Editor": not by the whole title, whose tags and buttons are no name.
      aria-labelledby="step-detail-title-step step-detail-title-agent"
      slotProps={{ paper: { sx: fullScreen ? {} : { height: '90vh' }, ref: paperRef } }}
    >
      {step && (
        <>
          <DialogTitle id="step-detail-title" sx={{ display: 'flex', alignItems: 'center', flexWrap: 'wrap', gap: 1.5, pr: 7 }}>
            <Box component="span" id="step-detail-title-step" sx={{ flexShrink: 0 }}>
              Step {step.index + 1}
            </Box>
            {/* A window title can be one long word: it wraps, and the buttons stay on screen. */}
            <Typography component="span" id="step-detail-title-agent" color="text.secondary" sx={{ minWidth: 0, overflowWrap: 'anywhere' }}>
              {step.agent}
              {step.target ? ` · ${step.target}` : ''}
            </Typography>
            <StepStatusChip status={step.status} />
            <StepNotRunTag notRun={step.notRun} />
            <Box sx={{ ml: 'auto', display: 'flex', gap: 1, flexShrink: 0 }}>
              <Button size="small" onClick={() => go(-1)} disabled={position <= 0} title="Alt+←">
                Previous step
              </Button>
              <Button size="small" onClick={() => go(1)} disabled={position >= steps.length - 1} title="Alt+→">
                Next step
              </Button>
            </Box>
            <IconButton aria-label="Close" onClick={close} sx={{ position: 'absolute', right: 8, top: 8 }}>
              <CloseIcon />
            </IconButton>
          </DialogTitle>
          <DialogContent
            dividers
            sx={stacked ? { '&:focus-visible': { outline: 3, outlineColor: 'primary.main', outlineOffset: -3 } } : { display: 'flex', flexDirection: 'column', minHeight: 0 }}
            // Stacked, the content is the one scroll: it takes the keyboard's arrows and Page keys.
            {...(stacked ? { tabIndex: 0 } : {})}
          >
            <ViewErrorBoundary area="the details of this step" resetKey={step.id}>
              <StepDetailBody step={step} fetched={fetched?.stepId === step.id ? fetched : null} stacked={stacked} />
            </ViewErrorBoundary>
          </DialogContent>
        </>
      )}
    </Dialog>
  );
}
