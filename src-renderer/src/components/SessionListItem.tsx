import MoreVertIcon from '@mui/icons-material/MoreVert';
import { IconButton, ListItem, ListItemButton, ListItemText, Menu, MenuItem } from '@mui/material';
import { memo, useState, type MouseEvent } from 'react';
import type { SessionView } from '../../../src-main/protocol';
import { formatWhen, SESSION_STATUS_LABELS } from './labels';

interface SessionListItemProps {
  session: SessionView;
  selected: boolean;
  /** Its `session.open` is on its way. */
  opening: boolean;
  onOpen(sessionId: string): void;
  onRename(session: SessionView): void;
  onExport(session: SessionView): void;
  onDelete(session: SessionView): void;
}

/** The attribute that marks a session's actions button, for the focus to come back to it after a dialog. */
export const SESSION_ACTIONS_ATTRIBUTE = 'data-session-actions';

/** One past session: its title, status, time and step count; its actions (Rename, Export, Delete) in a menu. */
export const SessionListItem = memo(function SessionListItem({ session, selected, opening, onOpen, onRename, onExport, onDelete }: SessionListItemProps) {
  const [menuAnchor, setMenuAnchor] = useState<HTMLElement | null>(null);
  const title = session.title || session.request;
  const steps = `${session.stepCount} ${session.stepCount === 1 ? 'step' : 'steps'}`;
  const close = (): void => setMenuAnchor(null);
  return (
    <ListItem
      disablePadding
      secondaryAction={
        <IconButton
          edge="end"
          size="small"
          aria-label={`Actions for ${title}`}
          aria-haspopup="menu"
          {...{ [SESSION_ACTIONS_ATTRIBUTE]: session.id }}
          onClick={(event) => setMenuAnchor(event.currentTarget)}>
          <MoreVertIcon fontSize="small" />
        </IconButton>
      }
    >
      {/* A link, not a button: a title ("Send the report…") must never compete with the app's Send and Stop buttons. */}
      <ListItemButton
        component="a"
        href={`#session-${encodeURIComponent(session.id)}`}
        data-session-id={session.id}
        selected={selected}
        aria-current={selected ? 'page' : undefined}
        aria-busy={opening || undefined}
        onClick={(event: MouseEvent) => {
          event.preventDefault();
          onOpen(session.id);
        }}
      >
        <ListItemText
          primary={title}
          secondary={opening ? 'Opening…' : `${SESSION_STATUS_LABELS[session.status]} · ${steps} · ${formatWhen(session.updatedAt)}`}
          slotProps={{ primary: { noWrap: true, title: session.request }, secondary: { noWrap: true } }}
        />
      </ListItemButton>
      <Menu anchorEl={menuAnchor} open={menuAnchor !== null} onClose={close}>
        <MenuItem
          onClick={() => {
            close();
            onRename(session);
          }}
        >
          Rename
        </MenuItem>
        <MenuItem
          onClick={() => {
            close();
            onExport(session);
          }}
        >
          Export
        </MenuItem>
        <MenuItem
          onClick={() => {
            close();
            onDelete(session);
          }}
          sx={{ color: 'error.main' }}
        >
          Delete
        </MenuItem>
      </Menu>
    </ListItem>
  );
});
