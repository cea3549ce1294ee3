import { router } from "../../trpc/init";

/** tRPC `campaigns` router (procedures arrive with the campaigns issue). */
export const campaignsRouter = router({});
