import type { ExecutionArgs, GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * A plugin that refuses an operation before it runs when `check` finds a problem: the same check
 * for queries and mutations (onExecute) and for subscriptions (onSubscribe), whose arguments have
 * the same shape. The depth, cost and introspection guards are each one `check`.
 */
export function refuseWhen(check: (args: ExecutionArgs) => GraphQLError | null): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const err = check(args);
      if (err) setResultAndStopExecution({ errors: [err] });
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const err = check(args);
      if (err) setResultAndStopExecution({ errors: [err] });
    },
  };
}
