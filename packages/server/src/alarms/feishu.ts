/**
 * Feishu (Lark) group robots (飞书自定义机器人): POST to the robot's webhook URL
 * (`/open-apis/bot/v2/hook/<token>`) a rich-text `post` message or a `text` one. With the
 * robot's signature check on, the body also carries `timestamp` (epoch seconds) and `sign` =
 * Base64(HMAC-SHA256(key = timestamp + "\n" + secret, message = "")) — Feishu keys the HMAC with
 * the string and signs nothing, the reverse of DingTalk — and refuses a timestamp more than an
 * hour off. The robot answers `{"code": 0, "msg": "success"}` (older ones `{"StatusCode": 0}`).
 *
 * A `post` carries the alarm in `text` elements, which Feishu shows as they are (no markup, no
 * entities: `un_escape` left false). A `text` message is read for tags — `<at user_id="all">`
 * mentions everyone, `<b>` and the like style — and `[text](url)` links, and has no escape: there
 * a zero-width space follows each `<` and `]` of the alarm, which then shows as written and
 * opens no tag, mention or link.
 */
import { createHmac } from 'node:crypto';
import { type Static, Type } from 'typebox';
import { type AlarmMessage, renderText } from './alarm-message.js';
import { AlarmSendError } from './alarm-send-error.js';
import type { AlarmChannelKind } from './channel.js';
import { httpUrl, signingSecret } from './config-schemas.js';
import { postJson } from './post-json.js';

export const FeishuConfig = Type.Object(
  {
    url: httpUrl("The robot's webhook URL: https://open.feishu.cn/open-apis/bot/v2/hook/…"),
    secret: Type.Optional(signingSecret("The robot's signing secret (签名校验)")),
    msgType: Type.Optional(Type.Enum(['post', 'text'], { default: 'post' })),
  },
  { additionalProperties: false },
);
export type FeishuConfig = Static<typeof FeishuConfig>;

export const feishuChannel: AlarmChannelKind<FeishuConfig> = {
  type: 'FEISHU',
  configSchema: FeishuConfig,
  secretFields: ['secret'],
  urlFields: ['url'],
  async send(message, config, context) {
    const body: Record<string, unknown> = feishuMessage(message, config);
    if (config.secret !== undefined) {
      const timestamp = String(Math.floor(context.now() / 1000));
      body.timestamp = timestamp;
      body.sign = feishuSign(timestamp, config.secret);
    }
    const answer = await postJson(config.url, JSON.stringify(body), {}, context);
    const reply = answer.json as { code?: unknown; msg?: unknown; StatusCode?: unknown } | undefined;
    if (reply?.code === 0 || (reply?.code === undefined && reply?.StatusCode === 0)) return;
    throw new AlarmSendError(
      `Feishu refused the message: code ${String(reply?.code ?? reply?.StatusCode)}, ${String(reply?.msg ?? answer.text.slice(0, 200))}`,
      { retryable: false },
    );
  },
};

/** Base64 HMAC-SHA256 of the empty string keyed with `timestamp\nsecret`. */
export function feishuSign(timestamp: string, secret: string): string {
  return createHmac('sha256', `${timestamp}\n${secret}`).update('').digest('base64');
}

export function feishuMessage(message: AlarmMessage, config: FeishuConfig) {
  if (config.msgType === 'text') {
    return { msg_type: 'text', content: { text: inertFeishuText(renderText(message)) } };
  }
  const lines = message.facts.map(([label, value]) => [{ tag: 'text', text: `${label}: ${value}` }]);
  if (message.details !== '') lines.push([{ tag: 'text', text: message.details }]);
  return {
    msg_type: 'post',
    content: { post: { zh_cn: { title: message.title, content: lines } } },
  };
}

/** Zero-width space: invisible, and no tag name or link target may start with it. */
const ZERO_WIDTH_SPACE = '\u200b';

/** `text` with no `<at …>`, `<b>` or `[text](url)` a Feishu text message would read as markup. */
export function inertFeishuText(text: string): string {
  return text.replace(/[<\]]/g, `$&${ZERO_WIDTH_SPACE}`);
}
