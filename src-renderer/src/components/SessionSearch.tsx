import SearchIcon from '@mui/icons-material/Search';
import { InputAdornment, TextField } from '@mui/material';
import { useEffect, useRef, useState } from 'react';
import { FOCUS_TARGETS, useDeskhand } from '../store';
import { MOD_KEY } from './labels';

const SEARCH_DEBOUNCE_MS = 250;

/** Searches past sessions on the host (`session.list` with a query) as the user types, debounced. */
export function SessionSearch() {
  const refreshSessions = useDeskhand((state) => state.refreshSessions);
  const [text, setText] = useState('');
  const firstRender = useRef(true);

  useEffect(() => {
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    const timer = setTimeout(() => void refreshSessions(text), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, refreshSessions]);

  return (
    <TextField
      id={FOCUS_TARGETS.sessionSearch}
      type="search"
      size="small"
      label="Search sessions"
      placeholder={`${MOD_KEY}+K`}
      value={text}
      onChange={(event) => setText(event.target.value)}
      onKeyDown={(event) => {
        if (event.key === 'Escape' && text) {
          event.stopPropagation();
          setText('');
        }
      }}
      fullWidth
      slotProps={{
        input: {
          startAdornment: (
            <InputAdornment position="start">
              <SearchIcon fontSize="small" />
            </InputAdornment>
          ),
        },
        htmlInput: { maxLength: 200 },
      }}
    />
  );
}
