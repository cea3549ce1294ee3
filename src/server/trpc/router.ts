import { accountRouter } from "../features/account/account.router";
import { apiKeysRouter } from "../features/api/api.router";
import { authRouter } from "../features/auth/auth.router";
import { avatarRouter } from "../features/avatar/avatar.router";
import { billingRouter } from "../features/billing/billing.router";
import { campaignsRouter } from "../features/campaigns/campaigns.router";
import { crmRouter } from "../features/crm/crm.router";
import { dashboardRouter } from "../features/dashboard/dashboard.router";
import { demoRouter } from "../features/demo/demo.router";
import { leadsRouter } from "../features/leads/leads.router";
import { studioRouter } from "../features/studio/studio.router";
import { userRouter } from "../features/user/user.router";
import { webhooksRouter } from "../features/webhooks/webhooks.router";
import { workspacesRouter } from "../features/workspaces/workspaces.router";
import { router } from "./init";

export const appRouter = router({
  auth: authRouter,
  user: userRouter,
  account: accountRouter,
  demo: demoRouter,
  dashboard: dashboardRouter,
  crm: crmRouter,
  leads: leadsRouter,
  campaigns: campaignsRouter,
  studio: studioRouter,
  avatar: avatarRouter,
  workspaces: workspacesRouter,
  billing: billingRouter,
  apiKeys: apiKeysRouter,
  webhooks: webhooksRouter,
});

export type AppRouter = typeof appRouter;
