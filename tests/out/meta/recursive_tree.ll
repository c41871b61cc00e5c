; ModuleID = 'wgc'
target datalayout = "e-m:e-p:32:32-i1:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%"class.RWStructuredBuffer<uint4>" = type opaque
%class.RWByteAddressBuffer = type opaque
%"class.RWStructuredBuffer<uint>" = type opaque
%TerrainConstants = type opaque

@VisibleTiles = external constant %"class.RWStructuredBuffer<uint4>"
@VisibleCount = external constant %class.RWByteAddressBuffer
@LevelHistogram = external constant %"class.RWStructuredBuffer<uint>"
@TerrainConstants = external constant %TerrainConstants

declare void @CullRoots()

declare void @EmitLeaf()

declare void @LeafStatistics()

declare void @TraverseTile()

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!12, !13, !23, !30, !33}
!wgc.spirv.entryPoints = !{!40, !41, !42, !43}

!0 = !{!"wgc 0.1.0"}
!1 = !{i32 1, i32 9}
!2 = !{!"lib", i32 6, i32 9}
!3 = !{null, !4, !10, null}
!4 = !{!5, !7, !8}
!5 = !{i32 0, %"class.RWStructuredBuffer<uint4>"* @VisibleTiles, !"VisibleTiles", i32 0, i32 1, i32 1, i32 12, i1 false, i1 false, i1 false, !6}
!6 = !{i32 1, i32 16}
!7 = !{i32 1, %class.RWByteAddressBuffer* @VisibleCount, !"VisibleCount", i32 0, i32 2, i32 1, i32 11, i1 false, i1 false, i1 false, null}
!8 = !{i32 2, %"class.RWStructuredBuffer<uint>"* @LevelHistogram, !"LevelHistogram", i32 0, i32 3, i32 1, i32 12, i1 false, i1 false, i1 false, !9}
!9 = !{i32 1, i32 4}
!10 = !{!11}
!11 = !{i32 0, %TerrainConstants* @TerrainConstants, !"TerrainConstants", i32 0, i32 0, i32 1, i32 128, null}
!12 = !{null, !"", null, !3, null}
!13 = !{void ()* @CullRoots, !"CullRoots", null, null, !14}
!14 = !{i32 8, i32 15, i32 13, i32 1, i32 15, !15, i32 16, i32 -1, i32 18, !16, i32 21, !17, i32 4, !21, i32 5, !22}
!15 = !{!"CullRoots", i32 0}
!16 = !{i32 1, i32 1, i32 1}
!17 = !{!18}
!18 = !{i32 1, i32 6, i32 2, !19, i32 3, i32 16, i32 0, !20}
!19 = !{i32 0, i32 12, i32 2, i32 4}
!20 = !{!"TraverseTile", i32 0}
!21 = !{i32 4, i32 4, i32 1}
!22 = !{i32 0}
!23 = !{void ()* @EmitLeaf, !"EmitLeaf", null, null, !24}
!24 = !{i32 8, i32 15, i32 13, i32 2, i32 15, !25, i32 16, i32 -1, i32 20, !26, i32 4, !29, i32 5, !22}
!25 = !{!"EmitLeaf", i32 0}
!26 = !{!27}
!27 = !{i32 1, i32 65, i32 2, !28, i32 3, i32 32}
!28 = !{i32 0, i32 16, i32 2, i32 4}
!29 = !{i32 32, i32 1, i32 1}
!30 = !{void ()* @LeafStatistics, !"LeafStatistics", null, null, !31}
!31 = !{i32 8, i32 15, i32 13, i32 2, i32 15, !32, i32 16, i32 -1, i32 17, !25, i32 20, !26, i32 4, !29, i32 5, !22}
!32 = !{!"LeafStatistics", i32 0}
!33 = !{void ()* @TraverseTile, !"TraverseTile", null, null, !34}
!34 = !{i32 8, i32 15, i32 13, i32 3, i32 15, !20, i32 16, i32 -1, i32 19, i32 8, i32 20, !35, i32 21, !37, i32 4, !16, i32 5, !22}
!35 = !{!36}
!36 = !{i32 1, i32 33, i32 2, !19}
!37 = !{!38, !39}
!38 = !{i32 1, i32 6, i32 2, !19, i32 3, i32 4, i32 0, !20}
!39 = !{i32 1, i32 6, i32 2, !28, i32 3, i32 1, i32 0, !25}
!40 = !{void ()* @CullRoots, !"CullRoots"}
!41 = !{void ()* @EmitLeaf, !"EmitLeaf"}
!42 = !{void ()* @LeafStatistics, !"LeafStatistics"}
!43 = !{void ()* @TraverseTile, !"TraverseTile"}
