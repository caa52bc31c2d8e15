// The test router's answers to the controller's inspections and terminator validations, as a v1.1.8 router gives
// them (router/handler_ctrl/inspect.go, validate_terminators.go): InspectRequest (1013) is answered with an
// InspectResponse (1014) holding the values it has, by the name asked; ValidateTerminatorsV2Request (1041) with a
// ValidateTerminatorsV2Response (1042) naming each terminator's state (valid unless a test says otherwise).
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import type { Channel } from '../../src/fabric/channel/channel.js';
import {
  ContentType as CtrlType,
  InspectRequestSchema,
  InspectResponseSchema,
  TerminatorInvalidReason,
  ValidateTerminatorsV2RequestSchema,
  ValidateTerminatorsV2ResponseSchema,
} from '../../src/fabric/messages/gen/ctrl_pb.js';

export class TestRouterInspect {
  /** Values by lower-cased name (e.g. `links`, `sdk-terminators` as the router's JSON). */
  readonly values = new Map<string, string>();
  /** Terminators this router calls invalid, with the reason. */
  readonly invalidTerminators = new Map<string, TerminatorInvalidReason>();
  /** The InspectRequests received, by their requested values. */
  readonly asked: string[][] = [];

  constructor(channel: Channel) {
    channel.handle(CtrlType.InspectRequestType, (message) => {
      const request = fromBinary(InspectRequestSchema, message.body);
      this.asked.push(request.requestedValues);
      const values = request.requestedValues.flatMap((name) => {
        const value = this.values.get(name.toLowerCase());
        return value === undefined ? [] : [{ name, value }];
      });
      channel.reply(message, {
        contentType: CtrlType.InspectResponseType,
        headers: new Map(),
        body: toBinary(InspectResponseSchema, create(InspectResponseSchema, { success: true, values })),
      });
    });
    channel.handle(CtrlType.ValidateTerminatorsV2RequestType, (message) => {
      const request = fromBinary(ValidateTerminatorsV2RequestSchema, message.body);
      const states = Object.fromEntries(
        request.terminators.map((terminator) => {
          const reason = this.invalidTerminators.get(terminator.id);
          return [
            terminator.id,
            reason === undefined
              ? { valid: true, marker: terminator.marker }
              : { valid: false, reason, detail: 'not hosted here', marker: terminator.marker },
          ];
        }),
      );
      channel.reply(message, {
        contentType: CtrlType.ValidateTerminatorsV2ResponseType,
        headers: new Map(),
        body: toBinary(ValidateTerminatorsV2ResponseSchema, create(ValidateTerminatorsV2ResponseSchema, { states })),
      });
    });
  }
}
