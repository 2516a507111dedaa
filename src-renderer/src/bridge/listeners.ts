import type { Unsubscribe } from './types';

/** A set of listeners where one throwing listener cannot stop the others from hearing the news. */
export class ListenerSet<T> {
  private readonly listeners = new Set<(value: T) => void>();

  add(listener: (value: T) => void): Unsubscribe {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  emit(value: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(value);
      } catch (error) {
        console.error('Deskhand: a bridge listener failed', error);
      }
    }
  }
}
