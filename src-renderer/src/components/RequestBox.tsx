import { Box, Button, TextField, ToggleButton, ToggleButtonGroup } from '@mui/material';
import { useState, type ClipboardEvent, type FormEvent, type KeyboardEvent } from 'react';
import { MAX_REQUEST_CHARS, type SessionMode } from '../../../src-main/protocol';
import { activeSession, currentSession, FOCUS_TARGETS, requestMode, useDeskhand, type DeskhandState, type RequestMode } from '../store';

function modeOf(state: DeskhandState): RequestMode {
  return requestMode(currentSession(state), state.awaitingStart, activeSession(state));
}

function hintFor(state: DeskhandState): string {
  const session = currentSession(state);
  const mode = modeOf(state);
  const running = activeSession(state);
  if (state.awaitingStart) return 'Sending…';
  if (running && running.id !== session?.id) {
    const name = `“${running.title || running.request}”`;
    if (running.status === 'waiting') return `${name} is waiting for you (one session at a time): reply to it, or Stop it, before sending a request.`;
    if (running.status === 'paused') return `${name} is paused (one session at a time): Resume or Stop it before sending a request.`;
    return `Deskhand is working on ${name} (one session at a time): wait, or Stop it, before sending a request.`;
  }
  if (mode === 'continue' && session) {
    const resume = session.status === 'interrupted' ? ' Or press Resume to go on from where it was cut off.' : '';
    return `Follow-up: Send adds a new round to this session, which keeps what it learned. New starts afresh.${resume}`;
  }
  if (mode === 'busy') {
    // Said as it is: "working" while the agent waits on the user, or is paused, sends them looking for nothing.
    if (session?.status === 'waiting') return 'The agent is waiting for you: reply to it, or Stop it, before sending more.';
    if (session?.status === 'paused') return 'This session is paused: Resume or Stop it before sending more.';
    return 'Deskhand is working on this session: wait, Pause or Stop it before sending more.';
  }
  return 'Enter sends, Shift+Enter adds a line.';
}

export function RequestBox() {
  const sendRequest = useDeskhand((state) => state.sendRequest);
  const mode = useDeskhand(modeOf);
  const hint = useDeskhand(hintFor);
  const [text, setText] = useState('');
  const [agentMode, setAgentMode] = useState<SessionMode>('desktop');
  const [sending, setSending] = useState(false);
  /** A paste went past the limit and the browser kept only its start: said, not done silently. */
  const [cut, setCut] = useState(false);
  const isEmpty = text.trim() === '';

  const submit = async (): Promise<void> => {
    if (isEmpty || sending) return;
    setSending(true);
    try {
      if (await sendRequest(text, agentMode)) {
        setText('');
        setCut(false);
      }
    } finally {
      setSending(false);
    }
  };

  const onSubmit = (event: FormEvent): void => {
    event.preventDefault();
    void submit();
  };

  const onPaste = (event: ClipboardEvent<HTMLDivElement>): void => {
    const field = event.target as HTMLTextAreaElement;
    const replaced = (field.selectionEnd ?? 0) - (field.selectionStart ?? 0);
    setCut(text.length - replaced + event.clipboardData.getData('text/plain').length > MAX_REQUEST_CHARS);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>): void => {
    // An IME composition uses Enter to confirm a word; that Enter is not a send. Ctrl/⌘+Enter approves a held step.
    if (event.key !== 'Enter' || event.shiftKey || event.ctrlKey || event.metaKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    void submit();
  };

  return (
    <Box component="form" onSubmit={onSubmit} sx={{ p: 2 }}>
      <Box sx={{ display: 'flex', gap: 1, alignItems: 'flex-start' }}>
        <TextField
          id={FOCUS_TARGETS.request}
          label="Request"
          placeholder={mode === 'continue' ? 'What next? (a follow-up in this session)' : 'What should Deskhand do?'}
          value={text}
          onChange={(event) => {
            setText(event.target.value);
            if (event.target.value.length < MAX_REQUEST_CHARS) setCut(false);
          }}
          onPaste={onPaste}
          onKeyDown={onKeyDown}
          multiline
          minRows={1}
          maxRows={8}
          fullWidth
          helperText={cut ? `A request holds ${MAX_REQUEST_CHARS.toLocaleString('en')} characters at most: the end of what you pasted was left out.` : hint}
          error={cut}
          slotProps={{ htmlInput: { maxLength: MAX_REQUEST_CHARS } }}
        />
        <Button type="submit" variant="contained" disabled={isEmpty || sending || mode === 'busy'} sx={{ height: 56, flexShrink: 0 }}>
          Send
        </Button>
      </Box>
      {mode === 'start' && (
        // Shell mode needs no screen: without one (browser mode on a server, say) it is the mode that works.
        <ToggleButtonGroup
          size="small"
          exclusive
          value={agentMode}
          onChange={(_event, value: SessionMode | null) => {
            if (value) setAgentMode(value);
          }}
          aria-label="Where the agent works"
          color="primary"
          sx={{ mt: 1 }}
        >
          <ToggleButton value="desktop" title="The agents look at the screen and work in its windows">
            Desktop
          </ToggleButton>
          <ToggleButton value="shell" title="The ShellAgent alone runs shell commands: no window, no screen needed">
            Shell
          </ToggleButton>
        </ToggleButtonGroup>
      )}
    </Box>
  );
}
