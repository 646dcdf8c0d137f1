/**
 * Asks before a page's unsaved changes are lost. While `dirty`:
 * - reloading or closing the tab asks the browser's own question;
 * - a plain click on a link of the console to another page (the menu, the page's own links) is
 *   held before the router sees it, and goes on only if confirmed;
 * - the returned `leave(to)` does the same for the page's buttons that navigate.
 * The router's back button is not held: the console uses a plain `BrowserRouter`, which has no
 * blocker.
 */
import { App as AntApp } from 'antd';
import { useCallback, useEffect } from 'react';
import { useNavigate } from 'react-router-dom';

export interface LeaveWords {
  title: string;
  text: string;
  /** The confirming button's label ("Leave"). */
  leave: string;
  cancel: string;
}

export function useLeaveGuard(dirty: boolean, words: LeaveWords): (to: string) => void {
  const { modal } = AntApp.useApp();
  const navigate = useNavigate();
  const { title, text, leave, cancel } = words;

  const confirmThen = useCallback(
    (go: () => void) => modal.confirm({ title, content: text, okText: leave, cancelText: cancel, onOk: go }),
    [modal, title, text, leave, cancel],
  );

  useEffect(() => {
    if (!dirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  useEffect(() => {
    if (!dirty) return;
    const hold = (event: MouseEvent) => {
      if (event.defaultPrevented || event.button !== 0) return;
      if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      const link = event.target instanceof Element ? event.target.closest('a[href]') : null;
      if (!(link instanceof HTMLAnchorElement) || (link.target !== '' && link.target !== '_self')) return;
      const to = new URL(link.href, window.location.href);
      if (to.origin !== window.location.origin || to.pathname === window.location.pathname) return;
      event.preventDefault();
      event.stopPropagation();
      confirmThen(() => navigate(`${to.pathname}${to.search}${to.hash}`));
    };
    document.addEventListener('click', hold, true);
    return () => document.removeEventListener('click', hold, true);
  }, [dirty, confirmThen, navigate]);

  return useCallback(
    (to: string) => (dirty ? confirmThen(() => navigate(to)) : navigate(to)),
    [dirty, confirmThen, navigate],
  );
}
