/**
 * What an e-mail address is, for every address Tickwheel mails from or to: one mailbox, with no
 * whitespace, control character or character that separates, quotes or comments addresses
 * (`, ; : < > ( ) [ ] \ "`). A CR or LF in an address would let its author write mail headers of
 * their own; a comma or a second `<…>` would add recipients.
 *
 * And where an EMAIL channel mails: its own `to` list, and a job's `alarmEmail` addresses only
 * within the channel's recipient domains (`recipientDomains`; by default the domain of its
 * `from`), so a user who may edit a job cannot make the server mail an address of their choosing.
 */

const MAILBOX_CHAR = String.raw`[^\s\p{Cc}\p{Cf}@,;:<>()[\]\\"]`;
const DOMAIN_LABEL = String.raw`[^\s\p{Cc}\p{Cf}@,;:<>()[\]\\"./]+`;
const DOMAIN = `${DOMAIN_LABEL}(?:\\.${DOMAIN_LABEL})*`;
const ADDRESS = `${MAILBOX_CHAR}+@${DOMAIN}`;
/** A display name: quoted (no quote, backslash or control character inside) or plain words. */
const DISPLAY_NAME = String.raw`(?:"[^"\\\p{Cc}]*"|[^"<>@,;:\\()[\]\p{Cc}]*)`;

const ADDRESS_PATTERN = new RegExp(`^${ADDRESS}$`, 'u');
const SENDER_PATTERN = new RegExp(`^(?:${DISPLAY_NAME} ?<(${ADDRESS})>|(${ADDRESS}))$`, 'u');
const DOMAIN_PATTERN = new RegExp(`^${DOMAIN}$`, 'u');

/** Any domain: what an admin sets in `recipientDomains` to let jobs mail anywhere. */
export const ANY_DOMAIN = '*';

/** `ops@example.com`: one address, nothing around it. */
export function isMailAddress(text: string): boolean {
  return ADDRESS_PATTERN.test(text);
}

/**
 * The address of a sender, `alarms@example.com` or `Tickwheel <alarms@example.com>`; undefined
 * when `text` is anything else (two addresses, a line break, an unclosed `<`).
 */
export function senderAddress(text: string): string | undefined {
  const match = SENDER_PATTERN.exec(text);
  return match === null ? undefined : (match[1] ?? match[2]);
}

/** `example.com` or `*`, as `recipientDomains` lists them. */
export function isRecipientDomain(text: string): boolean {
  return text === ANY_DOMAIN || DOMAIN_PATTERN.test(text);
}

/** The domain of an address, lower-cased. */
export function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}

/**
 * The domains a channel mails jobs' addresses in: its `recipientDomains`, else its sender's
 * domain (an organisation's alarms go to its own people).
 */
export function recipientDomainsOf(config: { from: string; recipientDomains?: readonly string[] }): string[] {
  if (config.recipientDomains !== undefined) return config.recipientDomains.map((d) => d.toLowerCase());
  const sender = senderAddress(config.from);
  return sender === undefined ? [] : [domainOf(sender)];
}

/** True when `address` is in one of `domains` or a subdomain of one (`ops.example.com` in `example.com`). */
export function inRecipientDomains(address: string, domains: readonly string[]): boolean {
  const domain = domainOf(address);
  return domains.some((d) => d === ANY_DOMAIN || domain === d || domain.endsWith(`.${d}`));
}
