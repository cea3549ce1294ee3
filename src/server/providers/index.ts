import type { Env } from "../../env";
import type { Db } from "../db/client";
import type { AvatarProviders } from "./avatar";
import { createAvatarProviders } from "./avatar/factory";
import type { EmailProvider } from "./email";
import { LocalEmailProvider } from "./email/local";
import type { GeocoderProvider } from "./geocoder";
import { LocalGeocoder } from "./geocoder/local";
import type { SmsProvider } from "./sms";
import { LocalSmsProvider } from "./sms/local";
import type { StorageProvider } from "./storage";
import { createStorageProvider } from "./storage/factory";
import type { VoiceProvider } from "./voice";
import { LocalVoiceProvider } from "./voice/local";

/** Every provider the app reaches, chosen from env. Code gets these through context or job deps. */
export interface Providers {
  email: EmailProvider;
  sms: SmsProvider;
  voice: VoiceProvider;
  /** AI avatar video (AVATAR_PROVIDER default local|did|heygen; vendors present when their key is set) */
  avatar: AvatarProviders;
  /** addresses to coordinates (offline `zipcodes`) */
  geocoder: GeocoderProvider;
  /** media files (STORAGE_PROVIDER local|s3) */
  storage: StorageProvider;
}

/**
 * Picks each provider from env (`EMAIL_PROVIDER`, `SMS_PROVIDER`, `VOICE_PROVIDER`, ...). `local` is
 * the offline default. Vendor providers are added with their features.
 */
export function createProviders(env: Env, deps: { db: Db }): Providers {
  return {
    avatar: createAvatarProviders(env),
    email: new LocalEmailProvider(deps.db, env.EMAIL_FROM),
    sms: new LocalSmsProvider(deps.db),
    voice: new LocalVoiceProvider(deps.db),
    geocoder: new LocalGeocoder(),
    storage: createStorageProvider(env),
  };
}
