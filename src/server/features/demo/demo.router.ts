import { publicProcedure, router } from "../../trpc/init";
import { demoInput } from "./demo.schemas";
import { requestDemo } from "./demo.service";

export const demoRouter = router({
  send: publicProcedure.input(demoInput).mutation(async ({ ctx, input }) => {
    await requestDemo(ctx, input, { ip: ctx.ip });
    return { success: true as const };
  }),
});
