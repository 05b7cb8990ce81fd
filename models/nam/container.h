// SlimmableContainer (Core: NAM/container.cpp): several complete .nam models, each with a
// "max_value" in ascending order; a size v in [0, 1] picks the first submodel with
// v < max_value (the last one if none). The default is the last, largest submodel.
#pragma once

#include "models/nam/model.h"

#include <memory>
#include <vector>

namespace forge::nam {

class Container final : public Model {
public:
    struct Submodel {
        double max_value;
        std::unique_ptr<Model> model;
    };
    Container(std::vector<Submodel> submodels, std::size_t active);

    int in_channels() const override { return active().in_channels(); }
    int out_channels() const override { return active().out_channels(); }
    void prepare(int max_frames) override { submodels_[active_].model->prepare(max_frames); }
    void process(ConstSignal in, Signal out, int frames) noexcept override {
        submodels_[active_].model->process(in, out, frames);
    }
    long prewarm_samples() const override { return active().prewarm_samples(); }
    std::string describe() const override;

    // Core's ContainerModel::_get_index_for_slimmable_size.
    static std::size_t index_for(const std::vector<double>& max_values, double size);

private:
    const Model& active() const { return *submodels_[active_].model; }
    std::vector<Submodel> submodels_;
    std::size_t active_;
};

}  // namespace forge::nam
