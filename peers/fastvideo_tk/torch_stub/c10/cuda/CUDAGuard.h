// Stand-in for the header of this name that block_sparse_h100.cu includes (torch's or
// ThunderKittens' torch helpers): see torch_stub/fastvideo_tk_torch_stub.h.
#pragma once
#include "../../fastvideo_tk_torch_stub.h"
