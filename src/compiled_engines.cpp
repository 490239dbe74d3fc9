// loopsched::compiled, part 2: every engine over the erased transport.
#include <loopsched/impl/compiled_engines.ipp>
