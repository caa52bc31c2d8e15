// What a router's hello says beyond its id: its version (required, as upstream's handler_ctrl/accept.go requires it)
// and its link listeners (header 10, optional).
import { fromBinary } from '@bufbuild/protobuf';
import { decodeString } from '../channel/header-codecs.js';
import { ListenersSchema, type Listener } from '../messages/gen/ctrl_pb.js';
import { RouterRefused } from './router-auth.js';
import type { VersionInfo } from './router-connections.js';

/** The hello's version header; upstream refuses a router without one (handler_ctrl/accept.go). */
export function parseVersionInfo(header: Uint8Array | undefined): VersionInfo {
  if (!header) throw new RouterRefused('no version info header');
  const fields = decodeString(header).split('|');
  if (fields.length !== 5)
    throw new RouterRefused(`could not parse version info: expected 5 values, got ${fields.length}`);
  // Five fields, as checked: the defaults are never used.
  const [version = '', revision = '', buildDate = '', os = '', arch = ''] = fields;
  return { version, revision, buildDate, os, arch };
}

/** Header 10; upstream logs an unreadable one and goes on without listeners (handler_ctrl/accept.go). */
export function parseLinkListeners(header: Uint8Array | undefined, unreadable: (reason: string) => void): Listener[] {
  if (!header) return [];
  try {
    return fromBinary(ListenersSchema, header).listeners;
  } catch (error) {
    unreadable(error instanceof Error ? error.message : String(error));
    return [];
  }
}
