// The managed label's value that the engine tests' runtimes give their containers: not the host's own
// (HOST_SCOPE), which the packaged agent's test runs with on the same engine. That agent reconciles its
// scope against its MachineDO, which destroys every container it does not know: another test file's
// container, mid-test, when they shared the scope.
export const ENGINE_TESTS_SCOPE = "engine-tests";
