// loopsched::compiled, part 1: the spec parser, the errors and the policy models.
#include <loopsched/impl/compiled_core.ipp>
