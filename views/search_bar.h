#pragma once
// Ctrl+F: find events by name (substring, or regex), highlight them on the timeline,
// and step through them with Enter / Shift+Enter or the arrows. The search runs on a
// worker thread (storage::searchIntervals reads every track in chunks); the matching
// names are highlighted at once, the count and the jump list follow.

#include "storage/analysis/event_search.h"
#include "views/latest_job_runner.h"
#include "views/timeline_renderer.h"

#include <QWidget>

#include <memory>

class QCheckBox;
class QLabel;
class QLineEdit;

namespace strata::views {

class SearchBar : public QWidget
{
    Q_OBJECT
public:
    explicit SearchBar(storage::StoreReader& store, QWidget* parent = nullptr);
    ~SearchBar() override;

    void focusSearch();
    /// Runs a search now and waits for it (tests).
    void searchAndWait(const QString& pattern, bool regex);
    std::int64_t matchCount() const { return m_result ? m_result->count : 0; }
    int currentIndex() const { return m_current; }

public slots:
    void next();
    void previous();

signals:
    void matchesChanged(std::unordered_set<strata::model::StringId> names);
    void showMatch(strata::views::PickedInterval match);

private:
    void start();
    void jump(int index);

    storage::StoreReader& m_store;
    QLineEdit* m_edit = nullptr;
    QCheckBox* m_regex = nullptr;
    QLabel* m_status = nullptr;
    std::shared_ptr<const storage::SearchResult> m_result;
    int m_current = -1;
    std::unique_ptr<LatestJobRunner> m_runner;  ///< last member: joined first on destruction
};

} // namespace strata::views
