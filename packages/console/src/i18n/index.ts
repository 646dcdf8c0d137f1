/**
 * i18next with one namespace per page (each page's `messages.ts`) plus `common`. The language is
 * remembered in localStorage; the first visit follows the browser (Chinese for zh-*, else English).
 */
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import account from '../pages/account/messages';
import apps from '../pages/apps/messages';
import audit from '../pages/audit/messages';
import channels from '../pages/channels/messages';
import dashboard from '../pages/dashboard/messages';
import fires from '../pages/fires/messages';
import jobs from '../pages/jobs/messages';
import login from '../pages/login/messages';
import scripts from '../pages/scripts/messages';
import tokens from '../pages/tokens/messages';
import users from '../pages/users/messages';
import workflows from '../pages/workflows/messages';
import common from './common';

export const LANGUAGES = ['en', 'zh'] as const;
export type Language = (typeof LANGUAGES)[number];
const STORAGE_KEY = 'tickwheel.language';

const namespaces = {
  common,
  login,
  dashboard,
  apps,
  jobs,
  workflows,
  scripts,
  fires,
  users,
  tokens,
  channels,
  audit,
  account,
};

function resources(language: Language) {
  return Object.fromEntries(Object.entries(namespaces).map(([ns, messages]) => [ns, messages[language]]));
}

export function initialLanguage(): Language {
  const stored = localStorage.getItem(STORAGE_KEY);
  if (stored === 'en' || stored === 'zh') return stored;
  return navigator.language.toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

/** Switches the language and remembers it. */
export async function setLanguage(language: Language): Promise<void> {
  localStorage.setItem(STORAGE_KEY, language);
  document.documentElement.lang = language === 'zh' ? 'zh-CN' : 'en';
  await i18n.changeLanguage(language);
}

void i18n.use(initReactI18next).init({
  resources: { en: resources('en'), zh: resources('zh') },
  lng: initialLanguage(),
  fallbackLng: 'en',
  defaultNS: 'common',
  ns: Object.keys(namespaces),
  // React escapes what it renders; i18next must not escape a second time.
  interpolation: { escapeValue: false },
  returnNull: false,
});
document.documentElement.lang = i18n.language === 'zh' ? 'zh-CN' : 'en';

export default i18n;
