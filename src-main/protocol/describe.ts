import type { ActionView } from './views';

function quote(text: unknown, max = 60): string {
  const value = typeof text === 'string' ? text : JSON.stringify(text ?? '');
  const oneLine = value.replace(/\s+/g, ' ').trim();
  if (oneLine.length <= max) return `'${oneLine}'`;
  // Not between the halves of a surrogate pair (an emoji): a lone half makes the model's endpoint refuse the prompt.
  const end = /[\uD800-\uDBFF]/.test(oneLine[max - 2] ?? '') ? max - 2 : max - 1;
  return `'${oneLine.slice(0, end)}…'`;
}

function at(args: Record<string, unknown>): string {
  return typeof args.x === 'number' && typeof args.y === 'number' ? ` at (${args.x}, ${args.y})` : '';
}

/** An action in words for people: "Click at (120, 40)", "Type 'hello'", "Press ctrl+s". */
export function describeAction(action: ActionView | null, target?: string): string {
  if (!action) return 'No action';
  const { args } = action;
  const on = target ? ` on ${quote(target, 40)}` : '';
  switch (action.function) {
    case 'click': {
      const button = args.button && args.button !== 'left' ? `${String(args.button)}-click` : 'Click';
      return `${args.double ? 'Double-click' : button}${on}${at(args)}`;
    }
    case 'move':
      return `Move the pointer${at(args)}`;
    case 'drag':
      return `Drag from (${String(args.from_x)}, ${String(args.from_y)}) to (${String(args.to_x)}, ${String(args.to_y)})`;
    case 'scroll':
      return `Scroll ${String(args.direction ?? '')}${at(args)}`;
    case 'type_text':
      return `Type ${quote(args.text)}${on}${at(args)}`;
    case 'hotkey':
      return `Press ${Array.isArray(args.keys) ? args.keys.join('+') : '?'}`;
    case 'wait':
      return `Wait ${String(args.seconds)} s`;
    case 'execute_command':
      return `Run ${quote(args.command)}`;
    case 'screenshot':
      return 'Take a screenshot';
    default:
      return `${action.function}(${quote(args, 50)})`;
  }
}

/** What a held action does, in words without its arguments: they may hold a password or a key. */
function actionKind(actions: ReadonlyArray<{ function: string }>): string {
  if (actions.length > 1) return `A sequence of ${actions.length} actions waits`;
  switch (actions[0]?.function) {
    case 'execute_command':
      return 'A shell command waits';
    case 'type_text':
      return 'Typing text waits';
    case 'hotkey':
      return 'A key press waits';
    case 'launch_app':
      return 'Starting a program waits';
    case 'click':
    case 'drag':
    case 'move':
    case 'scroll':
      return 'A mouse action waits';
    default:
      return 'A step waits';
  }
}

/**
 * A notification's words for an action held for approval: its kind, never its arguments, since
 * notifications show on the lock screen and stay in the system's history.
 */
export function approvalNotice(actions: ReadonlyArray<{ function: string }>): string {
  return `${actionKind(actions)} for your approval`;
}
