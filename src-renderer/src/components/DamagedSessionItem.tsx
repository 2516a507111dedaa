import MoreVertIcon from '@mui/icons-material/MoreVert';
import ReportProblemOutlinedIcon from '@mui/icons-material/ReportProblemOutlined';
import { IconButton, ListItem, ListItemButton, ListItemIcon, ListItemText, Menu, MenuItem } from '@mui/material';
import { memo, useState, type MouseEvent } from 'react';
import type { DamagedSessionView } from '../../../src-main/protocol';
import { damagedSessionName } from '../store';
import { formatWhen } from './labels';

interface DamagedSessionItemProps {
  damaged: DamagedSessionView;
  /** Tried to open it: it cannot be, and the user is told why. */
  onOpen(damaged: DamagedSessionView): void;
  onDelete(damaged: DamagedSessionView): void;
}

/**
 * A session whose stored row is damaged: listed like the others (a link, so the keyboard reaches it the
 * same way) but saying it is damaged and why; its only action is Delete.
 */
export const DamagedSessionItem = memo(function DamagedSessionItem({ damaged, onOpen, onDelete }: DamagedSessionItemProps) {
  const [menuAnchor, setMenuAnchor] = useState<HTMLElement | null>(null);
  const name = damagedSessionName(damaged);
  // The problem last: it is the longest, and the line is cut at the panel's edge (its whole text is the tooltip).
  const when = damaged.createdAt === null ? '' : ` · ${formatWhen(damaged.createdAt)}`;
  const close = (): void => setMenuAnchor(null);
  return (
    <ListItem
      disablePadding
      secondaryAction={
        <IconButton edge="end" size="small" aria-label={`Actions for ${name}`} aria-haspopup="menu" onClick={(event) => setMenuAnchor(event.currentTarget)}>
          <MoreVertIcon fontSize="small" />
        </IconButton>
      }
    >
      <ListItemButton
        component="a"
        href={`#session-${encodeURIComponent(damaged.id)}`}
        data-session-id={damaged.id}
        data-damaged="true"
        onClick={(event: MouseEvent) => {
          event.preventDefault();
          onOpen(damaged);
        }}
      >
        <ListItemIcon sx={{ minWidth: 32 }}>
          <ReportProblemOutlinedIcon fontSize="small" color="warning" aria-hidden />
        </ListItemIcon>
        <ListItemText
          primary={name}
          secondary={`Damaged${when} · ${damaged.problem}`}
          slotProps={{ primary: { noWrap: true, title: damaged.request ?? damaged.id }, secondary: { noWrap: true, title: damaged.problem } }}
        />
      </ListItemButton>
      <Menu anchorEl={menuAnchor} open={menuAnchor !== null} onClose={close}>
        <MenuItem
          onClick={() => {
            close();
            onDelete(damaged);
          }}
          sx={{ color: 'error.main' }}
        >
          Delete
        </MenuItem>
      </Menu>
    </ListItem>
  );
});
