// The address of the Node webhook receiver the workers project starts (test/support/webhook-receiver.ts).
import { inject } from "vitest";

export const webhookReceiverUrl = (): string => inject("webhookReceiver");

declare module "vitest" {
  export interface ProvidedContext {
    webhookReceiver: string;
  }
}
