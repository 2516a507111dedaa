import { Box, Button, TextField } from '@mui/material';
import { useState, type FormEvent, type KeyboardEvent } from 'react';
import { MAX_REQUEST_CHARS } from '../../../src-main/protocol';
import { useDeskhand } from '../store';

export function RequestBox() {
  const sendRequest = useDeskhand((state) => state.sendRequest);
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const isEmpty = text.trim() === '';

  const submit = async (): Promise<void> => {
    if (isEmpty || sending) return;
    setSending(true);
    try {
      if (await sendRequest(text)) setText('');
    } finally {
      setSending(false);
    }
  };

  const onSubmit = (event: FormEvent): void => {
    event.preventDefault();
    void submit();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>): void => {
    // An IME composition uses Enter to confirm a word; that Enter is not a send.
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    void submit();
  };

  return (
    <Box component="form" onSubmit={onSubmit} sx={{ display: 'flex', gap: 1, alignItems: 'flex-end', p: 2 }}>
      <TextField
        label="Request"
        placeholder="What should Deskhand do? (Enter sends, Shift+Enter adds a line)"
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
        multiline
        minRows={1}
        maxRows={8}
        fullWidth
        slotProps={{ htmlInput: { maxLength: MAX_REQUEST_CHARS } }}
      />
      <Button type="submit" variant="contained" disabled={isEmpty || sending} sx={{ height: 56 }}>
        Send
      </Button>
    </Box>
  );
}
