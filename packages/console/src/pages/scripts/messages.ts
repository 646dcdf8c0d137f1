/** The scripts page's words, in English and Simplified Chinese (same keys in both). */
export default {
  en: {},
  zh: {},
};
