import { Alert, AlertTitle, Box, Button } from '@mui/material';
import { Component, createRef, type ReactNode } from 'react';

interface ViewErrorBoundaryProps {
  /** What the part shows, as it reads after "could not show", e.g. "the trajectory". */
  area: string;
  /** A change (another step, a new version of a form) tries the part again by itself. */
  resetKey?: unknown;
  children: ReactNode;
}

interface ViewErrorBoundaryState {
  error: Error | null;
}

function asError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}

/**
 * Keeps a part of the window that failed to render (an agent's form, the trajectory, a step's details)
 * from blanking the whole window: it says what failed and offers to show that part again. The store
 * lives above every boundary, so nothing of the session is lost.
 */
export class ViewErrorBoundary extends Component<ViewErrorBoundaryProps, ViewErrorBoundaryState> {
  override state: ViewErrorBoundaryState = { error: null };
  private readonly reloadButton = createRef<HTMLButtonElement>();

  static getDerivedStateFromError(thrown: unknown): ViewErrorBoundaryState {
    return { error: asError(thrown) };
  }

  override componentDidUpdate(previous: ViewErrorBoundaryProps): void {
    if (this.state.error === null) return;
    if (!Object.is(previous.resetKey, this.props.resetKey)) {
      this.reload();
      return;
    }
    // The focus was in the part that went away (or on Reload, when it failed again): the keyboard
    // lands on the way to bring it back rather than at the top of the page.
    const focus = document.activeElement;
    if (focus === null || focus === document.body) this.reloadButton.current?.focus();
  }

  private readonly reload = (): void => {
    this.setState({ error: null });
  };

  override render(): ReactNode {
    const { error } = this.state;
    if (error === null) return this.props.children;
    const { area } = this.props;
    return (
      <Alert
        severity="error"
        role="alert"
        sx={{ m: 1, minWidth: 0 }}
        action={
          <Button ref={this.reloadButton} color="inherit" size="small" onClick={this.reload}>
            Reload {area}
          </Button>
        }
      >
        <AlertTitle>Deskhand could not show {area}</AlertTitle>
        <Box component="span" sx={{ fontFamily: 'monospace', overflowWrap: 'anywhere' }}>
          {error.message || error.name}
        </Box>
      </Alert>
    );
  }
}
