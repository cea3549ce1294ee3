import type { Env } from "../../env";
import type { Db } from "../db/client";
import type { AvatarProviders } from "./avatar";
import { createAvatarProviders } from "./avatar/factory";
import type { EmailProvider } from "./email";
import { LocalEmailProvider } from "./email/local";
import { PostmarkEmailProvider } from "./email/postmark";
import type { GeocoderProvider } from "./geocoder";
import { LocalGeocoder } from "./geocoder/local";
import type { PaymentsProvider } from "./payments";
import { LocalPaymentsProvider } from "./payments/local";
import { StripePaymentsProvider } from "./payments/stripe";
import type { PlacesProvider } from "./places";
import { createPlacesProvider } from "./places/factory";
import type { SmsProvider } from "./sms";
import { LocalSmsProvider } from "./sms/local";
import { type TwilioOptions, TwilioSmsProvider } from "./sms/twilio";
import type { StorageProvider } from "./storage";
import { createStorageProvider } from "./storage/factory";
import type { VoiceProvider } from "./voice";
import { LOCAL_CALLBACK_NUMBER, LocalVoiceProvider } from "./voice/local";
import { TwilioVoiceProvider } from "./voice/twilio";
import type { VoicemailProvider } from "./voicemail";
import { DropCowboyVoicemailProvider } from "./voicemail/dropcowboy";
import { LocalVoicemailProvider } from "./voicemail/local";

/** Every provider the app reaches, chosen from env. Code gets these through context or job deps. */
export interface Providers {
  email: EmailProvider;
  sms: SmsProvider;
  voice: VoiceProvider;
  /** AI avatar video (AVATAR_PROVIDER default local|did|heygen; vendors present when their key is set) */
  avatar: AvatarProviders;
  /** ringless voicemail drops (VOICEMAIL_PROVIDER local|dropcowboy) */
  voicemail: VoicemailProvider;
  /** addresses to coordinates (offline `zipcodes`) */
  geocoder: GeocoderProvider;
  /** business lead search (PLACES_PROVIDER local|osm|google) */
  places: PlacesProvider;
  /** media files (STORAGE_PROVIDER local|s3) */
  storage: StorageProvider;
  /** subscriptions and checkout (PAYMENTS_PROVIDER local|stripe) */
  payments: PaymentsProvider;
}

/**
 * Picks each provider from env (`EMAIL_PROVIDER`, `SMS_PROVIDER`, `VOICE_PROVIDER`, ...). `local` is
 * the offline default. Vendor providers are added with their features.
 */
export function createProviders(env: Env, deps: { db: Db }): Providers {
  const twilio: TwilioOptions = {
    accountSid: env.TWILIO_ACCOUNT_SID ?? "",
    authToken: env.TWILIO_AUTH_TOKEN ?? "",
    fromNumber: env.TWILIO_FROM_NUMBER,
    messagingServiceSid: env.TWILIO_MESSAGING_SERVICE_SID,
    apiHost: env.TWILIO_API_HOST,
  };
  return {
    avatar: createAvatarProviders(env),
    email:
      env.EMAIL_PROVIDER === "postmark"
        ? new PostmarkEmailProvider({
            serverToken: env.POSTMARK_SERVER_TOKEN ?? "",
            defaultFrom: env.EMAIL_FROM,
            broadcastStream: env.POSTMARK_BROADCAST_STREAM,
            apiHost: env.POSTMARK_API_HOST,
          })
        : new LocalEmailProvider(deps.db, env.EMAIL_FROM),
    sms: env.SMS_PROVIDER === "twilio" ? new TwilioSmsProvider(twilio) : new LocalSmsProvider(deps.db),
    voice:
      env.VOICE_PROVIDER === "twilio"
        ? new TwilioVoiceProvider(twilio, { db: deps.db, appUrl: env.APP_URL })
        : new LocalVoiceProvider(deps.db, env.NODE_ENV === "production" ? null : LOCAL_CALLBACK_NUMBER),
    voicemail:
      env.VOICEMAIL_PROVIDER === "dropcowboy"
        ? new DropCowboyVoicemailProvider({
            teamId: env.DROPCOWBOY_TEAM_ID ?? "",
            secret: env.DROPCOWBOY_SECRET ?? "",
            apiUrl: env.DROPCOWBOY_API_URL,
            callerId: env.DROPCOWBOY_CALLER_ID ?? env.TWILIO_FROM_NUMBER,
            brandId: env.DROPCOWBOY_BRAND_ID,
          })
        : new LocalVoicemailProvider(deps.db),
    geocoder: new LocalGeocoder(),
    places: createPlacesProvider(env),
    storage: createStorageProvider(env),
    payments:
      env.PAYMENTS_PROVIDER === "stripe"
        ? new StripePaymentsProvider({
            secretKey: env.STRIPE_SECRET_KEY ?? "",
            webhookSecret: env.STRIPE_WEBHOOK_SECRET ?? "",
            apiHost: env.STRIPE_API_HOST,
            planChangeConfiguration: env.STRIPE_PORTAL_PLAN_CHANGE_CONFIGURATION,
            manageConfiguration: env.STRIPE_PORTAL_CONFIGURATION,
          })
        : new LocalPaymentsProvider(deps.db, {
            appUrl: env.APP_URL,
            webhookSecret: env.LOCAL_PAYMENTS_WEBHOOK_SECRET,
          }),
  };
}
