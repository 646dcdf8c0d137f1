/**
 * DingTalk group robots (钉钉自定义机器人): POST to the robot's webhook URL (with its
 * `access_token`) a `markdown` or `text` message. With the robot's "加签" secret set, the URL
 * also carries `timestamp` (epoch ms) and `sign` = Base64(HMAC-SHA256(key = secret,
 * message = timestamp + "\n" + secret)), URL-encoded, as DingTalk documents; DingTalk refuses a
 * timestamp more than an hour off. The robot answers `{"errcode": 0, "errmsg": "ok"}`.
 */
import { createHmac } from 'node:crypto';
import { type Static, Type } from 'typebox';
import { type AlarmMessage, renderText } from './alarm-message.js';
import type { AlarmChannelKind } from './channel.js';
import { httpUrl, MobileList, signingSecret } from './config-schemas.js';
import { expectRobotSuccess, postJson } from './post-json.js';
import { DINGTALK_MARKDOWN, renderMarkdown } from './robot-markdown.js';

export const DingTalkConfig = Type.Object(
  {
    url: httpUrl("The robot's webhook URL: https://oapi.dingtalk.com/robot/send?access_token=…"),
    secret: Type.Optional(signingSecret("The robot's signing secret (加签, SEC…)")),
    msgType: Type.Optional(Type.Enum(['markdown', 'text'], { default: 'markdown' })),
    atMobiles: Type.Optional(MobileList),
    atAll: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type DingTalkConfig = Static<typeof DingTalkConfig>;

export const dingTalkChannel: AlarmChannelKind<DingTalkConfig> = {
  type: 'DINGTALK',
  configSchema: DingTalkConfig,
  secretFields: ['secret'],
  urlFields: ['url'],
  async send(message, config, context) {
    const url = new URL(config.url);
    if (config.secret !== undefined) {
      const timestamp = String(context.now());
      url.searchParams.set('timestamp', timestamp);
      url.searchParams.set('sign', dingTalkSign(timestamp, config.secret));
    }
    const answer = await postJson(url.href, JSON.stringify(dingTalkBody(message, config)), {}, context);
    expectRobotSuccess('DingTalk', answer, 'errcode', 'errmsg');
  },
};

/** Base64 HMAC-SHA256 of `timestamp\nsecret` keyed with the secret (URL-encoding is the URL's job). */
export function dingTalkSign(timestamp: string, secret: string): string {
  return createHmac('sha256', secret).update(`${timestamp}\n${secret}`, 'utf8').digest('base64');
}

export function dingTalkBody(message: AlarmMessage, config: DingTalkConfig) {
  const atMobiles = config.atMobiles ?? [];
  const at = { atMobiles, isAtAll: config.atAll === true };
  // DingTalk only notifies a mobile named in the text as well as in `at`.
  const mentions = atMobiles.map((mobile) => `@${mobile}`).join(' ');
  const withMentions = (text: string) => (mentions === '' ? text : `${text}\n\n${mentions}`);
  if (config.msgType === 'text') {
    return { msgtype: 'text', text: { content: withMentions(renderText(message)) }, at };
  }
  return {
    msgtype: 'markdown',
    markdown: { title: message.title, text: withMentions(renderMarkdown(message, DINGTALK_MARKDOWN)) },
    at,
  };
}
