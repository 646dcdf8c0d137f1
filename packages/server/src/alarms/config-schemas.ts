/** Settings several channel types share the shape of. */
import { Type } from 'typebox';

/** An http(s) URL; the API also checks that it parses. */
export function httpUrl(description: string) {
  return Type.String({ minLength: 8, maxLength: 2048, pattern: '^https?://\\S+$', description });
}

/** A signing secret, as the robot's or the receiver's settings show it. */
export function signingSecret(description: string) {
  return Type.String({ minLength: 1, maxLength: 512, description });
}

export const MobileList = Type.Array(Type.String({ minLength: 1, maxLength: 32 }), {
  maxItems: 50,
  description: 'Mobile numbers of group members to mention',
});
