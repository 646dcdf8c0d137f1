/**
 * WeCom group robots (企业微信群机器人): POST to the robot's webhook URL (its `key` in the query)
 * a `markdown` message (`content` at most 4096 bytes) or a `text` one (at most 2048 bytes, and
 * the only kind that can mention members by mobile). WeCom robots have no signing secret: the
 * key in the URL is the credential, which is why the API masks it. The robot answers
 * `{"errcode": 0, "errmsg": "ok"}`.
 */
import { type Static, Type } from 'typebox';
import { type AlarmMessage, renderText } from './alarm-message.js';
import type { AlarmChannelKind } from './channel.js';
import { httpUrl, MobileList } from './config-schemas.js';
import { expectRobotSuccess, postJson } from './post-json.js';
import { renderMarkdown, WECOM_MARKDOWN } from './robot-markdown.js';

const MARKDOWN_MAX_BYTES = 4096;
const TEXT_MAX_BYTES = 2048;

export const WeComConfig = Type.Object(
  {
    url: httpUrl("The robot's webhook URL: https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=…"),
    msgType: Type.Optional(Type.Enum(['markdown', 'text'], { default: 'markdown' })),
    mentionedMobiles: Type.Optional(MobileList),
  },
  { additionalProperties: false },
);
export type WeComConfig = Static<typeof WeComConfig>;

export const weComChannel: AlarmChannelKind<WeComConfig> = {
  type: 'WECOM',
  configSchema: WeComConfig,
  secretFields: [],
  urlFields: ['url'],
  async send(message, config, context) {
    const answer = await postJson(config.url, JSON.stringify(weComBody(message, config)), {}, context);
    expectRobotSuccess('WeCom', answer, 'errcode', 'errmsg');
  },
};

export function weComBody(message: AlarmMessage, config: WeComConfig) {
  if (config.msgType === 'text') {
    return {
      msgtype: 'text',
      text: {
        content: truncateBytes(renderText(message), TEXT_MAX_BYTES),
        mentioned_mobile_list: config.mentionedMobiles ?? [],
      },
    };
  }
  return {
    msgtype: 'markdown',
    markdown: { content: truncateBytes(renderMarkdown(message, WECOM_MARKDOWN), MARKDOWN_MAX_BYTES) },
  };
}

/** Cuts `text` to at most `maxBytes` of UTF-8 without splitting a character. */
export function truncateBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  let out = '';
  let bytes = 0;
  const ellipsis = '…';
  const budget = maxBytes - Buffer.byteLength(ellipsis, 'utf8');
  for (const char of text) {
    const size = Buffer.byteLength(char, 'utf8');
    if (bytes + size > budget) break;
    out += char;
    bytes += size;
  }
  return out + ellipsis;
}
