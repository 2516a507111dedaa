import { Box, Button, Card, CardContent, TextField, Tooltip, Typography } from '@mui/material';
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { Interaction } from '../../../src-main/protocol';
import { useDeskhand } from '../store';
import { closedOverlayJustBefore, confirmKeyAction, noteOtherInput, noteOverlayEscape } from './confirmKeys';
import { draftKey, useDraft } from './drafts';
import { noteAnswered, noteCardLeaving, waitingCardProps } from './focus';
import { MOD_KEY } from './labels';
import { ScreenshotLoadFailed } from './ScreenshotLoadFailed';
import { useScreenshotUrl } from './useScreenshotUrl';

type ConfirmInteraction = Extract<Interaction, { kind: 'confirm' }>;

const CONFIRM_CARD_ATTRIBUTE = 'data-confirm-card';

/** Shortcuts stay out of the way while a dialog, drawer or menu has the keyboard. */
function inOverlay(target: EventTarget | null): boolean {
  return target instanceof Element && target.closest('.MuiModal-root, .MuiPopover-root') !== null;
}

/** A snackbar, or a dialog, drawer or menu (closed ones that stay mounted are hidden). */
function overlayOpen(): boolean {
  return document.querySelector('.MuiSnackbar-root, .MuiModal-root:not(.MuiModal-hidden)') !== null;
}

/** Inside another card of the panel: a question's (or another approval's) card, or an agent's form. */
function inOtherCard(target: EventTarget | null, own: HTMLElement | null): boolean {
  const card = target instanceof Element ? target.closest('[data-waiting-card], [data-form-id]') : null;
  return card !== null && card !== own;
}

function isTextField(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement);
}

/** What a held step acts on, for the card's "On": the window or control, the shell, or the screen. */
export function heldOn(interaction: Pick<ConfirmInteraction, 'target' | 'actions'>): string {
  if (interaction.target) return interaction.target;
  const shellOnly = interaction.actions.length > 0 && interaction.actions.every((action) => action.function === 'execute_command');
  return shellOnly ? 'the shell (a command runs, no window)' : 'the screen (no window or control named)';
}

/**
 * A step held for approval (status CONFIRM, or a safety rule): what will happen, on what, why it was
 * held, and the screenshot with the action drawn on it. Approve (Ctrl/⌘+Enter, from anywhere) or
 * Reject (Esc, from anywhere but a text field, and not just after an Esc closed a message or dialog: in
 * the card's note, Esc first leaves the note), with
 * an optional note for the agent. A rejected
 * action never runs (the host's promise; we only send the decision). A key pressed inside a card is that
 * card's; pressed anywhere else it goes to the first card (`shortcuts`).
 */
export function ConfirmCard({ interaction, shortcuts }: { interaction: ConfirmInteraction; shortcuts: boolean }) {
  const screenshot = useScreenshotUrl(interaction.screenshot);
  const decide = useDeskhand((state) => state.decide);
  const [note, setNote] = useDraft(draftKey(interaction), '');
  const [sending, setSending] = useState<null | 'approve' | 'reject' | 'sent'>(null);
  const titleId = `confirm-${interaction.id}`;
  const send = useRef<(approved: boolean) => void>(() => {});
  const cardRef = useRef<HTMLElement>(null);

  send.current = (approved: boolean) => {
    if (sending !== null) return;
    setSending(approved ? 'approve' : 'reject');
    noteAnswered(interaction.id);
    void decide(interaction.id, approved, note).then((ok) => setSending(ok ? 'sent' : null));
  };

  useLayoutEffect(() => {
    const card = cardRef.current;
    return () => noteCardLeaving(card);
  }, []);

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent): void => {
      // A key pressed in a card (its note) is that card's; one pressed elsewhere goes to the first card.
      const inCard = event.target instanceof Element ? event.target.closest(`[${CONFIRM_CARD_ATTRIBUTE}]`) : null;
      if (inCard ? inCard !== cardRef.current : !shortcuts) return;
      const action = confirmKeyAction(event, {
        inOverlay: inOverlay(event.target),
        overlayOpen: overlayOpen(),
        inOtherTextField: isTextField(event.target) && !cardRef.current?.contains(event.target as Node),
        inOwnTextField: isTextField(event.target) && cardRef.current?.contains(event.target as Node) === true,
        inOtherCard: inOtherCard(event.target, cardRef.current),
        justClosedOverlay: closedOverlayJustBefore(event.timeStamp),
      });
      if (action === null) return;
      event.preventDefault();
      if (action === 'leave') cardRef.current?.focus();
      else send.current(action === 'approve');
    };
    // Seen before the dialog takes it (it stops the key there): an Esc that closes a snackbar or dialog;
    // any other key or a click in between, and the next Esc is meant as such.
    const onKeyDownFirst = (event: KeyboardEvent): void => {
      if (event.key !== 'Escape') noteOtherInput();
      else if (overlayOpen()) noteOverlayEscape(event.timeStamp);
    };
    window.addEventListener('keydown', onKeyDownFirst, { capture: true });
    window.addEventListener('pointerdown', noteOtherInput, { capture: true });
    window.addEventListener('keydown', onKeyDown);
    return () => {
      window.removeEventListener('keydown', onKeyDownFirst, { capture: true });
      window.removeEventListener('pointerdown', noteOtherInput, { capture: true });
      window.removeEventListener('keydown', onKeyDown);
    };
  }, [shortcuts]);

  const busy = sending !== null;
  return (
    <Card ref={cardRef} {...waitingCardProps} {...{ [CONFIRM_CARD_ATTRIBUTE]: '' }} variant="outlined" component="section" aria-labelledby={titleId} sx={{ borderColor: 'warning.main', borderWidth: 2 }}>
      <CardContent sx={{ display: 'flex', flexDirection: 'column', gap: 1.5 }}>
        <Typography id={titleId} variant="h6" component="h3">
          Approve this action?
        </Typography>
        <Box>
          <Typography variant="overline" color="text.secondary" id={`${titleId}-what`}>
            What will happen
          </Typography>
          {/* A long sequence must not push Approve and Reject out of sight: the box scrolls (by keyboard too). */}
          <Typography
            sx={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', fontWeight: 600, maxHeight: 240, overflowY: 'auto' }}
            data-testid="confirm-action"
            aria-labelledby={`${titleId}-what`}
            role="region"
            tabIndex={0}
          >
            {interaction.actionText}
          </Typography>
        </Box>
        <Box>
          <Typography variant="overline" color="text.secondary" id={`${titleId}-exact`}>
            Exactly what runs
          </Typography>
          {/* The summary above is shortened; this is every argument as it will be sent, line breaks shown as \n. */}
          <Box
            component="pre"
            data-testid="confirm-exact"
            aria-labelledby={`${titleId}-exact`}
            tabIndex={0}
            sx={{ m: 0, p: 1, maxHeight: 240, overflow: 'auto', whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', fontFamily: 'monospace', fontSize: 12, bgcolor: 'action.hover', borderRadius: 1 }}
          >
            {interaction.actions.map((action) => `${action.function} ${JSON.stringify(action.args, null, 2)}`).join('\n')}
          </Box>
        </Box>
        <Box>
          <Typography variant="overline" color="text.secondary">
            On
          </Typography>
          <Typography sx={{ overflowWrap: 'anywhere' }}>{heldOn(interaction)}</Typography>
        </Box>
        <Box>
          <Typography variant="overline" color="text.secondary">
            Why it was held
          </Typography>
          <Box component="ul" sx={{ m: 0, pl: 2.5 }}>
            {interaction.reasons.map((reason, i) => (
              <Typography component="li" variant="body2" key={i}>
                {reason}
              </Typography>
            ))}
          </Box>
        </Box>
        {interaction.screenshot && screenshot.failed && (
          <ScreenshotLoadFailed message="The screenshot of this action could not be loaded." screenshot={screenshot} focusAfter={() => cardRef.current} variant="body2" />
        )}
        {interaction.screenshot && screenshot.url && (
          <Box
            component="img"
            src={screenshot.url}
            alt="The screen with the action drawn on it"
            sx={{ width: '100%', height: 'auto', borderRadius: 1, border: 1, borderColor: 'divider', aspectRatio: `${interaction.screenshot.width} / ${interaction.screenshot.height}` }}
          />
        )}
        <TextField
          label="Note for the agent (optional)"
          size="small"
          value={note}
          onChange={(event) => setNote(event.target.value)}
          disabled={busy}
          multiline
          maxRows={4}
          slotProps={{ htmlInput: { maxLength: 2000 } }}
        />
        <Box sx={{ display: 'flex', gap: 1, alignItems: 'center' }}>
          <Tooltip title={`Approve: the action runs (${MOD_KEY}+Enter)`}>
            <span>
              <Button variant="contained" color="success" disabled={busy} onClick={() => send.current(true)} aria-keyshortcuts="Control+Enter Meta+Enter">
                Approve
              </Button>
            </span>
          </Tooltip>
          <Tooltip title="Reject: the action does not run (Esc)">
            <span>
              <Button variant="outlined" color="error" disabled={busy} onClick={() => send.current(false)} aria-keyshortcuts="Escape">
                Reject
              </Button>
            </span>
          </Tooltip>
          {sending === 'sent' && (
            <Typography variant="body2" color="text.secondary">
              Sent.
            </Typography>
          )}
        </Box>
      </CardContent>
    </Card>
  );
}
