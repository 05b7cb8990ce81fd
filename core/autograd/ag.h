// forge::ag — eager reverse-mode automatic differentiation. One include for users:
//
//   Tensor w = ag::requires_grad(init);       // a leaf (parameter)
//   Tensor loss = ag::cross_entropy(ag::linear(x, w, b), y);
//   ag::backward(loss);                       // ag::grad(w) now holds dL/dw
//
// See docs/AUTOGRAD.md for the design.
#pragma once

#include "core/autograd/backward.h"
#include "core/autograd/autocast.h"
#include "core/autograd/grad_mode.h"
#include "core/autograd/ops/conv1d.h"
#include "core/autograd/ops/ctc.h"
#include "core/autograd/ops/conv2d.h"
#include "core/autograd/ops/dropout.h"
#include "core/autograd/ops/embedding.h"
#include "core/autograd/ops/loss.h"
#include "core/autograd/ops/lstm.h"
#include "core/autograd/ops/matmul.h"
#include "core/autograd/ops/norm.h"
#include "core/autograd/ops/pointwise.h"
#include "core/autograd/ops/reduce.h"
#include "core/autograd/ops/rope.h"
#include "core/autograd/ops/shape.h"
#include "core/autograd/ops/softmax.h"
#include "core/autograd/variable.h"
