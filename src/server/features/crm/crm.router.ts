import { router } from "../../trpc/init";

/** tRPC `crm` router (procedures arrive with the crm issue). */
export const crmRouter = router({});
