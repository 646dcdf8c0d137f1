/**
 * The reader's "reduce motion" setting (`prefers-reduced-motion: reduce`, set in the operating
 * system or the browser). While it is on, the console moves nothing it need not: antd's dialogs,
 * menus and messages appear and go without their zoom, slide and fade (`theme.token.motion`), and
 * the charts draw without animating. It is read live, so changing the setting applies at once.
 */
import { useSyncExternalStore } from 'react';

const QUERY = '(prefers-reduced-motion: reduce)';

export function prefersReducedMotion(): boolean {
  return window.matchMedia?.(QUERY).matches ?? false;
}

function subscribe(onChange: () => void): () => void {
  const query = window.matchMedia?.(QUERY);
  query?.addEventListener('change', onChange);
  return () => query?.removeEventListener('change', onChange);
}

export function useReducedMotion(): boolean {
  return useSyncExternalStore(subscribe, prefersReducedMotion);
}
